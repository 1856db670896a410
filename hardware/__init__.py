"""The only package that touches the Raspberry Pi's GPIO pins or a camera.

Standalone on purpose: it imports nothing from companion, vision or web, so it can be tried and
tested on its own, with virtual pins and recorded frames when no Pi is at hand.
"""
