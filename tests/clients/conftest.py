"""Fixtures of the real-client tests (clients_kit.py holds them and their helpers)."""

from clients_kit import client, drive, pytest_collection_modifyitems  # noqa: F401
