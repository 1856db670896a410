"""Frame sources: the picamera2 adapter against a stand-in module, replays, USB, functions."""

import sys
import types

import cv2
import numpy as np
import pytest

from hardware.camera import (
    BadCameraSpec,
    CameraError,
    FunctionSource,
    PiCameraSource,
    ReplaySource,
    VideoCaptureSource,
    open_source,
)

# -- a stand-in for picamera2 -------------------------------------------------------------------


class FakePicamera2:
    """Behaves like picamera2 where the adapter relies on it.

    The scene is a pure red board. Like libcamera, "RGB888" puts bytes in B, G, R order in memory
    and "BGR888" in R, G, B order. While auto exposure runs, exposure and gains drift from frame to
    frame; set_controls with AeEnable/AwbEnable False freezes them at the values given.
    """

    cameras = [{"Model": "imx708", "Num": 0}]
    busy = False
    opened: list["FakePicamera2"] = []

    @staticmethod
    def global_camera_info():
        return FakePicamera2.cameras

    def __init__(self, camera_num=0):
        if FakePicamera2.busy:
            raise RuntimeError("Failed to acquire camera: Device or resource busy")
        self.camera_num = camera_num
        self.config = None
        self.controls_log = []
        self.auto = False
        self.started = False
        self.closed = False
        self.captured = 0
        self.exposure, self.gain, self.gains = 10000, 1.0, (1.0, 1.0)
        FakePicamera2.opened.append(self)

    def create_video_configuration(self, main=None, **kwargs):
        return {"use_case": "video", "main": dict(main or {}), **kwargs}

    def configure(self, config):
        self.config = config

    def set_controls(self, controls):
        self.controls_log.append(dict(controls))
        if controls.get("AeEnable") is False:
            self.auto = False
            self.exposure = controls["ExposureTime"]
            self.gain = controls["AnalogueGain"]
            self.gains = controls["ColourGains"]
        elif controls.get("AeEnable"):
            self.auto = True

    def start(self):
        assert self.config is not None, "configure() must come before start()"
        self.started = True

    def capture_array(self, name="main"):
        assert self.started
        if self.auto:  # the algorithms still adjusting
            self.exposure += 500
            self.gain += 0.1
            self.gains = (self.gains[0] + 0.05, self.gains[1] - 0.02)
        self.captured += 1
        width, height = self.config["main"]["size"]
        red_in_memory = {"RGB888": (0, 0, 255), "BGR888": (255, 0, 0)}[self.config["main"]
                                                                         ["format"]]
        return np.full((height, width, 3), red_in_memory, np.uint8)

    def capture_metadata(self):
        return {"ExposureTime": self.exposure, "AnalogueGain": self.gain,
                "ColourGains": self.gains, "Lux": 300.0}

    def stop(self):
        self.started = False

    def close(self):
        self.closed = True


@pytest.fixture
def picamera2(monkeypatch):
    FakePicamera2.cameras = [{"Model": "imx708", "Num": 0}]
    FakePicamera2.busy = False
    FakePicamera2.opened = []
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    return FakePicamera2


def test_picamera_asks_for_opencv_colour_order_and_gives_bgr(picamera2):
    with PiCameraSource(size=(64, 48), settle_frames=3, settle_seconds=0) as source:
        camera = picamera2.opened[0]
        assert camera.config["main"] == {"size": (64, 48), "format": "RGB888"}
        frame = source.read()
    assert frame.image.shape == (48, 64, 3) and frame.image.dtype == np.uint8
    assert tuple(frame.image[0, 0]) == (0, 0, 255)  # red board, BGR order: red is last
    assert source.size == (64, 48)
    assert camera.closed and not camera.started


def test_picamera_locks_exposure_and_white_balance_after_settling(picamera2):
    source = PiCameraSource(size=(32, 24), settle_frames=10, settle_seconds=0)
    with source:
        camera = picamera2.opened[0]
        assert camera.controls_log[0] == {"AeEnable": True, "AwbEnable": True}
        assert camera.captured == 10
        locked = camera.controls_log[-1]
        assert locked["AeEnable"] is False and locked["AwbEnable"] is False
        # the values the algorithms had reached after 10 frames
        assert locked["ExposureTime"] == 10000 + 10 * 500
        assert locked["AnalogueGain"] == pytest.approx(2.0)
        assert locked["ColourGains"] == pytest.approx((1.5, 0.8))
        assert source.locked_controls == locked
        before = camera.capture_metadata()
        for _ in range(5):
            source.read()
        assert camera.capture_metadata() == before  # stable through the game


def test_picamera_settles_for_at_least_the_given_seconds(picamera2):
    ticks = iter(range(1000))
    source = PiCameraSource(size=(8, 8), settle_frames=2, settle_seconds=5,
                            clock=lambda: float(next(ticks)))
    with source:
        assert picamera2.opened[0].captured >= 5


def test_picamera_frame_indices_count_up(picamera2):
    with PiCameraSource(size=(8, 8), settle_frames=1, settle_seconds=0) as source:
        assert [source.read().index for _ in range(3)] == [0, 1, 2]


def test_no_camera_is_a_clear_error(picamera2):
    picamera2.cameras = []
    with pytest.raises(CameraError, match="no camera 0 found .0 connected.: check the ribbon"):
        PiCameraSource().open()


def test_busy_camera_is_a_clear_error(picamera2):
    picamera2.busy = True
    with pytest.raises(CameraError, match="the camera is busy: another program is using it"):
        PiCameraSource().open()


def test_missing_picamera2_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(CameraError, match="sudo apt install python3-picamera2"):
        PiCameraSource().open()


def test_reading_a_closed_camera_is_an_error(picamera2):
    with pytest.raises(CameraError, match="not open"):
        PiCameraSource().read()


# -- replays --------------------------------------------------------------------------------------

COLOURS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]


@pytest.fixture
def image_folder(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    # written out of order; names sort as 0..3
    for i in (2, 0, 3, 1):
        cv2.imwrite(str(folder / f"frame_{i:03}.png"), np.full((30, 40, 3), COLOURS[i], np.uint8))
    (folder / "notes.txt").write_text("not an image")
    return folder


def test_folder_replay_in_name_order_then_none(image_folder):
    with ReplaySource(image_folder) as source:
        assert source.size == (40, 30)
        frames = list(source)
        assert source.read() is None
    assert [tuple(f.image[0, 0]) for f in frames] == COLOURS
    assert [f.index for f in frames] == [0, 1, 2, 3]
    assert [f.timestamp for f in frames] == [0, 0.2, 0.4, pytest.approx(0.6)]


def test_folder_replay_paces_itself_in_realtime(image_folder):
    now = [50.0]
    sleeps = []

    def sleep(seconds):
        sleeps.append(round(seconds, 6))
        now[0] += seconds

    with ReplaySource(image_folder, realtime=True, fps=10, clock=lambda: now[0],
                      sleep=sleep) as source:
        list(source)
    assert sleeps == [0.1, 0.1, 0.1]


@pytest.fixture
def video(tmp_path):
    path = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 8.0, (64, 48))
    assert writer.isOpened()
    for colour in COLOURS * 2:
        writer.write(np.full((48, 64, 3), colour, np.uint8))
    writer.release()
    return path


def test_video_replay(video):
    with ReplaySource(video) as source:
        assert source.size == (64, 48)
        assert source.fps == pytest.approx(8.0)
        frames = list(source)
    assert len(frames) == 8
    for frame, colour in zip(frames, COLOURS * 2, strict=True):
        assert np.abs(frame.image[24, 32].astype(int) - colour).max() < 40  # JPEG-compressed
    assert frames[4].timestamp == pytest.approx(0.5)


def test_replay_errors(tmp_path):
    with pytest.raises(CameraError, match="no such file or folder"):
        ReplaySource(tmp_path / "missing").open()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(CameraError, match="has no images"):
        ReplaySource(empty).open()
    junk = tmp_path / "junk.avi"
    junk.write_bytes(b"this is not a video")
    with pytest.raises(CameraError, match="not a video OpenCV can read"):
        ReplaySource(junk).open()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "a.png").write_bytes(b"not a png")
    with pytest.raises(CameraError, match="cannot be read"):
        ReplaySource(broken).open()


# -- USB and streams ------------------------------------------------------------------------------


def test_usb_camera_that_is_not_there_fails_cleanly(capfd):
    with pytest.raises(CameraError) as info:
        VideoCaptureSource(63).open()
    assert str(info.value).startswith("cannot open USB camera 63: is it plugged in?")
    assert "WARN" not in capfd.readouterr().err  # OpenCV's own noise kept off the terminal


def test_usb_source_reads_through_opencv(video):
    # VideoCapture opens files as well as devices: the same code path as a webcam
    with VideoCaptureSource(str(video)) as source:
        assert source.size == (64, 48)
        frame = source.read()
        assert frame.image.shape == (48, 64, 3) and frame.index == 0


# -- frames from a function -----------------------------------------------------------------------


def test_function_source_size_from_the_first_frame_without_losing_it():
    calls = []

    def produce(index):
        calls.append(index)
        return np.full((10, 20, 3), index, np.uint8) if index < 3 else None

    with FunctionSource(produce, name="sim") as source:
        assert source.size == (20, 10)
        frames = list(source)
    assert [int(f.image[0, 0, 0]) for f in frames] == [0, 1, 2]
    assert calls == [0, 1, 2, 3]
    assert source.read() is None


def test_function_source_checks_the_images():
    source = FunctionSource(lambda i: np.zeros((10, 20), np.uint8), name="sim")
    with pytest.raises(CameraError, match="sim gave a uint8 array of shape .10, 20., not a colour"):
        source.read()
    with pytest.raises(CameraError, match="gave no frames"):
        _ = FunctionSource(lambda i: None).size


# -- the --camera option --------------------------------------------------------------------------


def test_open_source_parses_camera_specs(tmp_path, image_folder):
    assert isinstance(open_source("picamera"), PiCameraSource)
    assert open_source("picamera:1").camera_num == 1
    assert open_source("usb:2").device == 2
    assert open_source("usb").device == 0
    assert open_source("rtsp://10.0.0.5/stream").device == "rtsp://10.0.0.5/stream"
    replay = open_source(f"replay:{image_folder}", realtime=True, fps=4)
    assert isinstance(replay, ReplaySource) and replay.realtime and replay.fps == 4
    sim = FunctionSource(lambda i: None, name="sim")
    assert open_source("sim", sim_factory=lambda: sim) is sim


@pytest.mark.parametrize(("spec", "words"), [
    ("webcam", "camera 'webcam': unknown; use picamera, usb:N"),
    ("usb:x", "'x' is not a camera number"),
    ("replay:", "give the folder or video, as replay:PATH"),
    ("sim", "the simulated table is not available"),
])
def test_open_source_refuses_bad_specs(spec, words):
    with pytest.raises(BadCameraSpec) as info:
        open_source(spec)
    assert words in str(info.value)
    assert isinstance(info.value, ValueError)
