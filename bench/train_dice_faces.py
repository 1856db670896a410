"""Train the close-up dice reader's face network (`vision/dice_faces.py`) on real photos.

    python bench/train_dice_faces.py [--folds 5] [--seed 0] [--out MODEL.npz]

Split: only the ``train_*`` photos of /work/shared/data/dice are used for training (and for
choosing settings, by a cross-validation over those photos, grouped by photo so a photo's
dice never sit on both sides). The ``valid_*`` photos are held out: they are only scored,
with the network trained on every ``train_*`` photo, which is then written to ``--out``
(default: the shipped ``vision/dice_configs/closeup_faces.npz``).

Samples: the reader's own proposals (`dice_faces.proposals`) on each photo. The proposal
nearest a labelled box's centre (within one pip diameter) is a face of the labelled value,
mirrored left-right as a second sample (the camera's view of top and side faces is
mirror-symmetric); other proposals within ``--ignore`` pip diameters of a labelled centre are
left out (nearly centred, neither clearly right nor wrong); the rest - side faces, a face's
own pips off its centre, keyboard keys, print - are "no top face".

The model is ``--members`` networks trained alike from seeds ``--seed``, ``--seed`` + 1, ...,
their logits averaged (`train_ensemble`).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
import tempfile
from pathlib import Path

# one BLAS thread, set before numpy loads: threaded sums round differently from run to run,
# and the same seed must train the same network
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.dice_accuracy import DATA, load_boxes, score  # noqa: E402
from vision.dice import DiceConfig, find_pips, read_dice  # noqa: E402
from vision.dice_faces import FaceModel, crops, features, proposals  # noqa: E402

CLASSES = 7  # no top face, 1-6


def photo_samples(image: str, truth: list, config: DiceConfig,
                  ignore: float) -> tuple[np.ndarray, np.ndarray]:
    """Features and classes of one photo's proposals (see the module's docstring)."""
    grey = cv2.cvtColor(cv2.imread(str(DATA / image)), cv2.COLOR_BGR2GRAY)
    pips, _, _ = find_pips(grey, None, config)
    centres = proposals(pips, config)
    if not centres:
        return np.zeros((0, 0), np.float32), np.zeros(0, np.int64)
    labels = np.zeros(len(centres), np.int64)
    keep = np.ones(len(centres), bool)
    for value, x1, y1, x2, y2 in truth:
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        reach = np.array([math.hypot(x - cx, y - cy) / d for x, y, d in centres])
        keep &= reach > ignore
        nearest = int(reach.argmin())
        if reach[nearest] <= 1.0:
            labels[nearest], keep[nearest] = value, True
    patches = crops(grey, centres, config)
    x = features(patches, centres, pips)
    faces = labels > 0
    mirrored = features(patches[faces][:, :, ::-1].copy(),
                        [c for c, f in zip(centres, faces, strict=True) if f], pips)
    # the mirror's pip counts are the same: counts do not depend on left and right
    return (np.concatenate([x[keep], mirrored]), np.concatenate([labels[keep], labels[faces]]))


def train(x: np.ndarray, y: np.ndarray, seed: int, hidden: int = 32, epochs: int = 60,
          rate: float = 0.01, decay: float = 1e-4) -> FaceModel:
    """One ReLU hidden layer, softmax, classes weighted alike, Adam on mini-batches."""
    rng = np.random.default_rng(seed)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-3
    xn = ((x - mean) / scale).astype(np.float32)
    n_in = x.shape[1]
    params = [rng.normal(0, 1 / math.sqrt(n_in), (n_in, hidden)).astype(np.float32),
              np.zeros(hidden, np.float32),
              rng.normal(0, 1 / math.sqrt(hidden), (hidden, CLASSES)).astype(np.float32),
              np.zeros(CLASSES, np.float32)]
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    weight = (len(y) / (CLASSES * np.bincount(y, minlength=CLASSES)[y])).astype(np.float32)
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(y))
        for start in range(0, len(y), 128):
            idx = order[start:start + 128]
            w1, b1, w2, b2 = params
            hid = np.maximum(xn[idx] @ w1 + b1, 0)
            logits = hid @ w2 + b2
            odds = np.exp(logits - logits.max(axis=1, keepdims=True))
            odds /= odds.sum(axis=1, keepdims=True)
            odds[np.arange(len(idx)), y[idx]] -= 1
            grad_out = odds * (weight[idx] / weight[idx].sum())[:, None]
            grad_hid = (grad_out @ w2.T) * (hid > 0)
            grads = [xn[idx].T @ grad_hid + decay * w1, grad_hid.sum(axis=0),
                     hid.T @ grad_out + decay * w2, grad_out.sum(axis=0)]
            step += 1
            for k, g in enumerate(grads):
                first[k] = 0.9 * first[k] + 0.1 * g
                second[k] = 0.999 * second[k] + 0.001 * g * g
                params[k] -= rate * (first[k] / (1 - 0.9 ** step)) / (
                    np.sqrt(second[k] / (1 - 0.999 ** step)) + 1e-8)
    return FaceModel({"mean": mean.astype(np.float32), "scale": scale.astype(np.float32),
                      "w1": params[0], "b1": params[1], "w2": params[2], "b2": params[3]})


def train_ensemble(x: np.ndarray, y: np.ndarray, seed: int, members: int) -> FaceModel:
    """``members`` networks whose logits are averaged, written as one network holding all
    their hidden units (the reader needs no change). Each network alone makes a few
    confident mistakes of its own - keyboard keys and side faces taken for dice - that the
    others do not share."""
    nets = [train(x, y, seed=seed + k) for k in range(members)]
    return FaceModel({"mean": nets[0].mean, "scale": nets[0].scale,
                      "w1": np.concatenate([n.w1 for n in nets], axis=1),
                      "b1": np.concatenate([n.b1 for n in nets]),
                      "w2": np.concatenate([n.w2 for n in nets], axis=0) / members,
                      "b2": np.mean([n.b2 for n in nets], axis=0)})


def evaluate(model: FaceModel, images: list[str], boxes: dict, config: DiceConfig,
             path: Path) -> tuple[int, int, int]:
    """(right dice, counted dice, photos all right) as `bench/dice_accuracy.py` counts them."""
    model.save(path)
    config = dataclasses.replace(config, face_model=str(path))
    right = total = photos = 0
    for image in images:
        r, t = score(read_dice(cv2.imread(str(DATA / image)), config=config), boxes[image])
        right, total, photos = right + r, total + t, photos + (r == t)
    return right, total, photos


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ignore", type=float, default=0.6)
    parser.add_argument("--members", type=int, default=3,
                        help="networks trained from successive seeds, logits averaged")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "vision"
                                             / "dice_configs" / "closeup_faces.npz"))
    args = parser.parse_args()
    cv2.setNumThreads(1)
    config = DiceConfig.preset("closeup")
    boxes = load_boxes()
    train_images = sorted(i for i in boxes if Path(i).name.startswith("train_"))
    valid_images = sorted(i for i in boxes if Path(i).name.startswith("valid_"))
    samples = {i: photo_samples(i, boxes[i], config, args.ignore) for i in train_images}
    fold = np.random.default_rng(args.seed).permutation(len(train_images)) % args.folds

    def stack(images: list[str]) -> tuple[np.ndarray, np.ndarray]:
        parts = [samples[i] for i in images if len(samples[i][1])]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    with tempfile.TemporaryDirectory() as tmp:
        right = total = photos = 0
        for k in range(args.folds):
            held = [i for i, f in zip(train_images, fold, strict=True) if f == k]
            model = train_ensemble(*stack([i for i in train_images if i not in held]),
                                   seed=args.seed, members=args.members)
            r, t, p = evaluate(model, held, boxes, config, Path(tmp) / f"fold{k}.npz")
            right, total, photos = right + r, total + t, photos + p
        print(f"train_* {args.folds}-fold cross-validation (by photo): per die {right}/{total}"
              f" = {100 * right / total:.1f} %, whole photo {photos}/{len(train_images)}")
        model = train_ensemble(*stack(train_images), seed=args.seed, members=args.members)
        r, t, p = evaluate(model, valid_images, boxes, config, Path(tmp) / "all.npz")
        print(f"valid_* (held out), trained on all train_*: per die {r}/{t} = "
              f"{100 * r / t:.1f} %, whole photo {p}/{len(valid_images)}")
    model.save(args.out)
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
