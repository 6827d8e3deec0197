"""Scripts that time the system beside a baseline (`python bench/<name>.py`); a package so the
import-linter contracts can place it at the top of the layers: nothing imports bench."""
