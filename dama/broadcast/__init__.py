"""Live broadcast of many boards (issue 6): PDN feeds over HTTP and in a folder, and MQTT between the
board computers and a hub.

The feeds are built by folding each board's event stream with :class:`dama.record.GameRecord`, the same
fold the board's own PDN sink uses, so a feed is byte-for-byte the board's PDN. Nothing here can change a
game: the feed side only reads events.
"""
