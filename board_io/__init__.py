"""The outside world: frame sources, the serial LED driver and its firmware, speech output."""
