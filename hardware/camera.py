"""Frame sources: the Pi camera, a USB webcam or stream, a recorded replay, or a function.

Every source gives :class:`Frame` objects holding a BGR uint8 image (OpenCV's order), so the vision
pipeline never knows where frames came from. ``open_source`` parses the one ``--camera`` option.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
#: Pace of a folder replay in real time when no fps is given (a photo every 0.2 s).
FOLDER_FPS = 5.0
CAMERA_HELP = "use picamera, usb:N, a stream URL (rtsp://, http://), replay:PATH or sim"


class CameraError(RuntimeError):
    """A camera or recording cannot give frames; the message says why in plain words."""


class BadCameraSpec(CameraError, ValueError):
    """The ``--camera`` value itself is wrong."""


@dataclass(frozen=True)
class Frame:
    """One picture: ``image`` is H x W x 3 BGR uint8; ``timestamp`` in seconds (live sources:
    ``time.monotonic()``; replays: the position in the recording); ``index`` counts from 0."""

    image: np.ndarray
    timestamp: float
    index: int


class FrameSource(ABC):
    """Where frames come from. A context manager; :meth:`read` gives None when frames run out."""

    name = "frames"

    def __enter__(self) -> FrameSource:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:  # noqa: B027 - sources with nothing to open keep this
        """Acquire the device; called by ``with``. Raises CameraError with the reason."""

    def close(self) -> None:  # noqa: B027 - sources with nothing to release keep this
        """Release the device. Safe to call twice."""

    @abstractmethod
    def read(self) -> Frame | None:
        """The next frame, or None at the end (replay finished, camera gone)."""

    _size: tuple[int, int] | None = None  # known once open (or given up front)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the frames in pixels."""
        if self._size is None:
            raise CameraError(f"{self.name} is not open yet")
        return self._size

    def __iter__(self):
        while (frame := self.read()) is not None:
            yield frame

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def check_image(image: Any, where: str) -> np.ndarray:
    """The image as given if it is BGR uint8, else a CameraError naming the source."""
    if not (isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.ndim == 3
            and image.shape[2] == 3):
        got = (f"{image.dtype} array of shape {image.shape}" if isinstance(image, np.ndarray)
               else type(image).__name__)
        raise CameraError(f"{where} gave a {got}, not a colour (BGR uint8) image")
    return image


# -- the Raspberry Pi camera ----------------------------------------------------------------


class PiCameraSource(FrameSource):
    """A Pi camera module through picamera2, with exposure and white balance locked.

    Auto exposure and auto white balance run for ``settle_frames`` frames (and at least
    ``settle_seconds``) and are then frozen at the values they settled on: a referee that compares
    colours all game long cannot have the camera re-balancing when a hand or a shadow passes.
    """

    def __init__(self, camera_num: int = 0, size: tuple[int, int] = (1280, 960), *,
                 settle_frames: int = 30, settle_seconds: float = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.camera_num = camera_num
        self.name = f"picamera:{camera_num}"
        self._size = size
        self.settle_frames = settle_frames
        self.settle_seconds = settle_seconds
        self._clock = clock
        self._camera: Any = None
        self._index = 0
        #: The exposure and colour controls frozen after settling (for the log and selftest).
        self.locked_controls: dict[str, Any] = {}

    def open(self) -> None:
        try:
            from picamera2 import Picamera2  # only on a Pi, from apt: python3-picamera2
        except ImportError:
            raise CameraError(
                "picamera2 is not installed: `sudo apt install python3-picamera2` and make the "
                "venv with --system-site-packages (or use --camera usb:0)") from None
        cameras = Picamera2.global_camera_info()
        if len(cameras) <= self.camera_num:
            raise CameraError(
                f"no camera {self.camera_num} found ({len(cameras)} connected): check the "
                "ribbon cable and that the camera is enabled, then try `rpicam-hello`")
        try:
            camera = Picamera2(self.camera_num)
        except (RuntimeError, OSError) as exc:
            if "busy" in str(exc).lower():
                raise CameraError(
                    "the camera is busy: another program is using it (a second companion, "
                    "rpicam-hello, ...); stop that and try again") from None
            raise CameraError(f"cannot open the camera: {exc}") from None
        self._camera = camera
        try:
            # picamera2's "RGB888" is B, G, R in memory: exactly OpenCV's order, no conversion.
            config = camera.create_video_configuration(
                main={"size": self._size, "format": "RGB888"})
            camera.configure(config)
            camera.set_controls({"AeEnable": True, "AwbEnable": True})
            camera.start()
            self._settle_and_lock()
        except Exception as exc:
            self.close()
            raise CameraError(f"the camera would not start: {exc}") from None

    def _settle_and_lock(self) -> None:
        started = self._clock()
        frames = 0
        while frames < self.settle_frames or self._clock() - started < self.settle_seconds:
            self._camera.capture_array("main")
            frames += 1
        settled = self._camera.capture_metadata()
        self.locked_controls = {
            "AeEnable": False,
            "AwbEnable": False,
            "ExposureTime": settled["ExposureTime"],
            "AnalogueGain": settled["AnalogueGain"],
            "ColourGains": tuple(settled["ColourGains"]),
        }
        self._camera.set_controls(self.locked_controls)

    def read(self) -> Frame | None:
        if self._camera is None:
            raise CameraError("the camera is not open (use it in a `with` block)")
        image = check_image(self._camera.capture_array("main"), "the Pi camera")
        frame = Frame(image, self._clock(), self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        camera, self._camera = self._camera, None
        if camera is not None:
            try:
                camera.stop()
            finally:
                camera.close()


# -- OpenCV: USB webcams and streams --------------------------------------------------------


class VideoCaptureSource(FrameSource):
    """A USB webcam (device index) or a network stream (URL) through OpenCV."""

    def __init__(self, device: int | str, size: tuple[int, int] | None = None, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.device = device
        self.name = f"usb:{device}" if isinstance(device, int) else str(device)
        self._wanted_size = size
        self._clock = clock
        self._capture: cv2.VideoCapture | None = None
        self._size: tuple[int, int] | None = None
        self._index = 0

    def open(self) -> None:
        # OpenCV logs a warning per backend it tried; our error below says it in one line.
        level = cv2.utils.logging.getLogLevel()
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
        try:
            capture = cv2.VideoCapture(self.device)
        finally:
            cv2.utils.logging.setLogLevel(level)
        if not capture.isOpened():
            capture.release()
            if isinstance(self.device, int):
                raise CameraError(f"cannot open USB camera {self.device}: is it plugged in? "
                                  "(`ls /dev/video*` lists the cameras)")
            raise CameraError(f"cannot open the stream {self.device}: check the address")
        if self._wanted_size is not None:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, self._wanted_size[0])
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self._wanted_size[1])
        self._size = (int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)),
                      int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)))
        self._capture = capture

    def read(self) -> Frame | None:
        if self._capture is None:
            raise CameraError(f"{self.name} is not open (use it in a `with` block)")
        ok, image = self._capture.read()
        if not ok:
            return None
        frame = Frame(check_image(image, self.name), self._clock(), self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        capture, self._capture = self._capture, None
        if capture is not None:
            capture.release()


# -- replays ----------------------------------------------------------------------------------


class ReplaySource(FrameSource):
    """A folder of images (in name order) or a video file, played back.

    By default as fast as the reader takes frames; with ``realtime`` at ``fps`` (default: the
    video's own rate, or FOLDER_FPS for a folder), sleeping between frames like a live camera.
    """

    def __init__(self, path: str | Path, *, realtime: bool = False, fps: float | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Any] = time.sleep) -> None:
        self.path = Path(path)
        self.name = f"replay:{self.path}"
        self.realtime = realtime
        if fps is not None and fps <= 0:
            raise BadCameraSpec(f"replay fps {fps}: must be more than 0")
        self._fps = fps
        self._clock = clock
        self._sleep = sleep
        self._files: list[Path] | None = None
        self._video: cv2.VideoCapture | None = None
        self._size: tuple[int, int] | None = None
        self._index = 0
        self._started: float | None = None

    @property
    def fps(self) -> float:
        """Frames per second of the recording (given, the video's own, or FOLDER_FPS)."""
        if self._fps is not None:
            return self._fps
        if self._video is not None:
            native = self._video.get(cv2.CAP_PROP_FPS)
            if native and native > 0:
                return float(native)
        return FOLDER_FPS

    def open(self) -> None:
        if self.path.is_dir():
            files = sorted(p for p in self.path.iterdir()
                           if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
            if not files:
                raise CameraError(f"replay folder {self.path} has no images "
                                  f"({', '.join(IMAGE_SUFFIXES)})")
            self._files = files
            first = self._load(files[0])
            self._size = (first.shape[1], first.shape[0])
        elif self.path.is_file():
            video = cv2.VideoCapture(str(self.path))
            if not video.isOpened():
                video.release()
                raise CameraError(f"replay {self.path}: not a video OpenCV can read")
            self._video = video
            self._size = (int(video.get(cv2.CAP_PROP_FRAME_WIDTH)),
                          int(video.get(cv2.CAP_PROP_FRAME_HEIGHT)))
        else:
            raise CameraError(f"replay {self.path}: no such file or folder")
        self._index = 0
        self._started = None

    def _load(self, path: Path) -> np.ndarray:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise CameraError(f"replay image {path} cannot be read (damaged or not an image)")
        return image

    def read(self) -> Frame | None:
        if self._files is None and self._video is None:
            raise CameraError(f"{self.name} is not open (use it in a `with` block)")
        if self._files is not None:
            if self._index >= len(self._files):
                return None
            image = self._load(self._files[self._index])
        else:
            ok, image = self._video.read()  # type: ignore[union-attr]
            if not ok:
                return None
        timestamp = self._index / self.fps
        if self.realtime:
            self._wait_until(timestamp)
        frame = Frame(check_image(image, self.name), timestamp, self._index)
        self._index += 1
        return frame

    def _wait_until(self, timestamp: float) -> None:
        if self._started is None:
            self._started = self._clock()
        delay = self._started + timestamp - self._clock()
        if delay > 0:
            self._sleep(delay)

    def close(self) -> None:
        video, self._video = self._video, None
        if video is not None:
            video.release()
        self._files = None


# -- frames from code -------------------------------------------------------------------------


class FunctionSource(FrameSource):
    """Frames from ``produce(index) -> image or None`` (None ends the source).

    The simulated table renderer lives outside this package; the companion wires it in here.
    """

    def __init__(self, produce: Callable[[int], np.ndarray | None], *, name: str = "function",
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._produce = produce
        self.name = name
        self._clock = clock
        self._index = 0
        self._size: tuple[int, int] | None = None
        self._peeked: np.ndarray | None = None
        self._ended = False

    @property
    def size(self) -> tuple[int, int]:
        """From the first frame, made early if need be and kept for the first read."""
        if self._size is None and self._index == 0 and not self._ended:
            self._peeked = self._next_image()
        if self._size is None:
            raise CameraError(f"{self.name} gave no frames")
        return self._size

    def _next_image(self) -> np.ndarray | None:
        image = self._produce(self._index)
        if image is None:
            self._ended = True
            return None
        image = check_image(image, self.name)
        if self._size is None:
            self._size = (image.shape[1], image.shape[0])
        return image

    def read(self) -> Frame | None:
        if self._ended:
            return None
        if self._peeked is not None:
            image, self._peeked = self._peeked, None
        else:
            image = self._next_image()
        if image is None:
            return None
        frame = Frame(image, self._clock(), self._index)
        self._index += 1
        return frame


# -- the --camera option ----------------------------------------------------------------------


def open_source(spec: str, *, sim_factory: Callable[[], FrameSource] | None = None,
                realtime: bool = False, fps: float | None = None) -> FrameSource:
    """The source for a ``--camera`` value (not yet opened: use it in a ``with`` block).

    ``picamera`` or ``picamera:N``; ``usb:N`` (or ``usb`` for the first); a stream URL;
    ``replay:PATH`` (a folder of images or a video; ``realtime``/``fps`` pace it); ``sim``,
    the simulated table, which needs ``sim_factory`` from the caller.
    """
    kind, sep, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind in ("rtsp", "http", "https") and sep:
        return VideoCaptureSource(spec.strip())
    if kind == "picamera":
        return PiCameraSource(_number(spec, arg) if sep else 0)
    if kind == "usb":
        return VideoCaptureSource(_number(spec, arg) if sep else 0)
    if kind == "replay":
        if not arg:
            raise BadCameraSpec(f"camera {spec!r}: give the folder or video, as replay:PATH")
        return ReplaySource(arg, realtime=realtime, fps=fps)
    if kind == "sim" and not sep:
        if sim_factory is None:
            raise BadCameraSpec("camera 'sim': the simulated table is not available in this "
                                "command")
        return sim_factory()
    raise BadCameraSpec(f"camera {spec!r}: unknown; {CAMERA_HELP}")


def _number(spec: str, text: str) -> int:
    if not text.isdigit():
        raise BadCameraSpec(f"camera {spec!r}: {text!r} is not a camera number (0, 1, ...)")
    return int(text)
