"""The core's private modules: toolsets use only what ``muxport`` exports
(docs/plugin-contract.md)."""

from muxport_launch.early import VERSION

__all__ = ["VERSION"]
