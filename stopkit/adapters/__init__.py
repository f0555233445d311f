"""The built-in adapters, one module per wire API; imported lazily by the registry."""
