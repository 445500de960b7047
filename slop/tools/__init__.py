"""What the model can do. Tools reach the store only through the narrow ToolStore API."""
