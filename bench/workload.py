"""The reference workload the benches quote their speed against (issues 3 and 4 ask for the
same one): GaussianBlur 5x5 and cvtColor to Lab of the frame just read, timed in the same
run, so a loaded box's swings cancel in the ratio."""

import cv2
import numpy as np


def reference(frame: np.ndarray) -> np.ndarray:
    """The workload itself; each bench times it its own way, as it times its reads."""
    return cv2.cvtColor(cv2.GaussianBlur(frame, (5, 5), 0), cv2.COLOR_BGR2Lab)
