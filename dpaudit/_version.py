"""The package version (a leaf module: the audit fingerprint records it without importing the package)."""

__version__ = "0.1.0"
