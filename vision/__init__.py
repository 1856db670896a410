"""Board vision: from a camera frame to the state of every field.

One module per pipeline stage, each a plain function on an image with its thresholds in
:class:`vision.config.VisionConfig`: ``markers`` (where is the board), ``pose`` (where is
the camera), ``calibration`` (which colour is which player), ``fields`` (what lies on
each field), ``occlusion`` (what is hidden by a hand) and ``reader`` (all of it).
"""
