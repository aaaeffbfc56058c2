"""The inventory: what bottui knows of a profile's accounts, projects, limiters, dimensions."""
