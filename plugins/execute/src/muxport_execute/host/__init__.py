"""What the host says about a pane's processes: /proc, termios, syscalls."""
