"""A simulated table: photo-like frames of a board, stacked pieces and dice, with exact truth.

Feeds the vision tests, the accuracy benchmarks and the demo mode. numpy + OpenCV only.
"""

from vision.sim.camera import CameraPose, PoseError, random_pose
from vision.sim.render import DieTruth, FieldTruth, Rendered, Truth, render
from vision.sim.scene import Card, Die, Hand, Lighting, Scene, random_scene

__all__ = [
    "CameraPose", "Card", "Die", "DieTruth", "FieldTruth", "Hand", "Lighting", "PoseError",
    "Rendered", "Scene", "Truth", "random_pose", "random_scene", "render",
]
