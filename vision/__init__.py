"""Vision: reading the board and dice from camera frames."""
