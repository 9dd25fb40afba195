"""The core's private modules: toolsets use only what ``muxport`` exports
(docs/plugin-contract.md)."""

VERSION = "0.1.0"
