"""Board layouts as data: where each field lies in millimetres and what it means.

A layout is a JSON file (the shipped ones live in ``companion/layouts/``). Board
coordinates are millimetres with the origin at the board's top-left corner, x to the
right and y down, as a player sitting at the board's bottom edge sees it. Fields are
given either one by one (``"fields": [{"name": ..., "centre_mm": [x, y], ...}]``) or as
a ``"grid"`` plus a row-major ``"cells"`` matrix whose entries become each field's
attributes. Anything a game needs beyond that (point tables, zones) stays in the file
and is handed to the game as ``Layout.extra``. Facts that the rule texts do not publish
are listed under ``"provisional"`` so a user knows what to check against their board.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LAYOUT_DIR = Path(__file__).with_name("layouts")


class LayoutError(ValueError):
    """A layout file that is missing, unreadable or inconsistent."""


@dataclass(frozen=True, slots=True)
class Field:
    """One field (or point) of a board."""

    name: str
    x_mm: float
    y_mm: float
    size_mm: float
    row: int | None = None
    col: int | None = None
    attrs: Mapping[str, Any] = field(default_factory=dict)

    @property
    def centre_mm(self) -> tuple[float, float]:
        return (self.x_mm, self.y_mm)

    @property
    def printed(self) -> str | None:
        """The name of the colour its square is printed in (a key of
        ``Layout.field_colours``), or None when the layout does not say: attribute
        ``printed`` where the square is not printed in its colour or zone (Spexxx's
        unplayable cells), else ``colour`` (Just 4 Fun), else ``zone`` (Spexxx)."""
        return self.attrs.get("printed") or self.attrs.get("colour") or self.attrs.get("zone")


@dataclass(frozen=True, slots=True)
class MarkerSpec:
    """The four ArUco markers that locate the board, in the order top-left, top-right,
    bottom-right, bottom-left (centres in board millimetres)."""

    dictionary: str
    size_mm: float
    ids: tuple[int, int, int, int]
    centres_mm: tuple[tuple[float, float], ...]


@dataclass(frozen=True, slots=True)
class PieceSpec:
    """The physical piece: needed to read tower heights and to render frames."""

    shape: str
    diameter_mm: float
    height_mm: float
    max_stack: int


@dataclass(frozen=True)
class Layout:
    game: str
    title: str
    board_size_mm: tuple[float, float]
    fields: dict[str, Field]
    markers: MarkerSpec
    piece: PieceSpec
    field_colours: dict[str, str]
    piece_colours: dict[str, str]
    dice_area_mm: tuple[float, float, float, float] | None
    provisional: tuple[str, ...]
    extra: dict[str, Any]
    source: str

    def field_at(self, row: int, col: int) -> Field | None:
        """The grid field at ``row``/``col``, or None off the grid."""
        return self._grid.get((row, col))

    @property
    def _grid(self) -> dict[tuple[int, int], Field]:
        grid = self.__dict__.get("_grid_cache")
        if grid is None:
            grid = {(f.row, f.col): f for f in self.fields.values() if f.row is not None}
            object.__setattr__(self, "_grid_cache", grid)
        return grid


def available_layouts() -> list[str]:
    """Names of the layouts shipped with the package."""
    return sorted(p.stem for p in LAYOUT_DIR.glob("*.json"))


def load_layout(name_or_path: str | Path) -> Layout:
    """Load a shipped layout by game name, or a user's layout file by path."""
    path = Path(name_or_path)
    if path.suffix != ".json":
        path = LAYOUT_DIR / f"{name_or_path}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LayoutError(
            f"no layout {str(name_or_path)!r} (shipped: {', '.join(available_layouts())})"
        ) from None
    except json.JSONDecodeError as exc:
        raise LayoutError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    return parse_layout(data, str(path))


def parse_layout(data: Any, source: str = "<layout>") -> Layout:
    """Build and check a :class:`Layout` from its JSON form."""
    if not isinstance(data, Mapping):
        raise LayoutError(f"{source}: a layout is a JSON object")
    where = source

    def need(key: str) -> Any:
        if key not in data:
            raise LayoutError(f"{where}: missing '{key}'")
        return data[key]

    fields = _parse_fields(data, where)
    width, height = _pair(need("board_size_mm"), f"{where}: board_size_mm")
    markers = need("markers")
    try:
        spec = MarkerSpec(
            dictionary=str(markers["dictionary"]),
            size_mm=float(markers["size_mm"]),
            ids=tuple(int(i) for i in markers["ids"]),
            centres_mm=tuple(
                _pair(c, f"{where}: markers.centres_mm") for c in markers["centres_mm"]
            ),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise LayoutError(f"{where}: markers: {exc}") from None
    if len(spec.ids) != 4 or len(spec.centres_mm) != 4:
        raise LayoutError(f"{where}: markers need exactly four ids and four centres")
    piece = need("piece")
    try:
        piece_spec = PieceSpec(
            shape=str(piece["shape"]),
            diameter_mm=float(piece["diameter_mm"]),
            height_mm=float(piece["height_mm"]),
            max_stack=int(piece.get("max_stack", 1)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise LayoutError(f"{where}: piece: {exc}") from None
    dice_area = data.get("dice_area_mm")
    if dice_area is not None:
        if not isinstance(dice_area, list) or len(dice_area) != 4:
            raise LayoutError(f"{where}: dice_area_mm is [x0, y0, x1, y1]")
        dice_area = tuple(float(v) for v in dice_area)
    printed = data.get("printed_lines")
    if data.get("mills") and not (isinstance(printed, dict) and all(
            isinstance(printed.get(k), int | float) for k in ("width_mm", "point_radius_mm"))):
        raise LayoutError(f"{where}: a board with mills needs printed_lines: "
                          '{"width_mm": ..., "point_radius_mm": ...} (its lines and dots)')
    colours = data.get("field_colours", {})
    unknown = sorted({str(f.attrs["printed"]) for f in fields.values() if "printed" in f.attrs}
                     - set(colours))
    if unknown:
        raise LayoutError(f"{where}: fields printed in {', '.join(unknown)}, which "
                          "field_colours does not give")
    core = {
        "game", "title", "board_size_mm", "markers", "piece", "fields", "grid", "cells",
        "field_colours", "piece_colours", "dice_area_mm", "provisional",
    }
    return Layout(
        game=str(need("game")),
        title=str(data.get("title", data["game"])),
        board_size_mm=(width, height),
        fields=fields,
        markers=spec,
        piece=piece_spec,
        field_colours=dict(colours),
        piece_colours=dict(need("piece_colours")),
        dice_area_mm=dice_area,
        provisional=tuple(data.get("provisional", ())),
        extra={k: v for k, v in data.items() if k not in core},
        source=source,
    )


def _pair(value: Any, where: str) -> tuple[float, float]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise LayoutError(f"{where}: expected [x, y], got {value!r}")
    try:
        return (float(value[0]), float(value[1]))
    except (TypeError, ValueError):
        raise LayoutError(f"{where}: expected numbers, got {value!r}") from None


def _parse_fields(data: Mapping[str, Any], where: str) -> dict[str, Field]:
    fields: dict[str, Field] = {}
    if "grid" in data:
        grid = data["grid"]
        try:
            columns = list(grid["columns"])
            rows = list(grid["rows"])
            x0, y0 = _pair(grid["first_centre_mm"], f"{where}: grid.first_centre_mm")
            dx, dy = _pair(grid["pitch_mm"], f"{where}: grid.pitch_mm")
            size = float(grid["field_size_mm"])
            pattern = str(grid.get("name", "{col}{row}"))
            cell_key = str(grid.get("cell_attribute", "value"))
        except KeyError as exc:
            raise LayoutError(f"{where}: grid: missing {exc}") from None
        cells = data.get("cells")
        if cells is not None and (
            len(cells) != len(rows) or any(len(r) != len(columns) for r in cells)
        ):
            raise LayoutError(f"{where}: cells must be {len(rows)} rows of {len(columns)} entries")
        for r, row_name in enumerate(rows):
            for c, col_name in enumerate(columns):
                cell = None if cells is None else cells[r][c]
                if cell is None and cells is not None:
                    continue  # a hole in the grid (e.g. a score track)
                if isinstance(cell, Mapping):
                    attrs = dict(cell)
                else:
                    attrs = {cell_key: cell} if cell else {}
                name = pattern.format(col=col_name, row=row_name)
                fields[name] = Field(name, x0 + c * dx, y0 + r * dy, size, r, c, attrs)
    for i, item in enumerate(data.get("fields", [])):
        try:
            name = str(item["name"])
            x, y = _pair(item["centre_mm"], f"{where}: fields[{i}].centre_mm")
            size = float(item.get("size_mm", 10.0))
        except (KeyError, TypeError) as exc:
            raise LayoutError(f"{where}: fields[{i}]: missing {exc}") from None
        attrs = {k: v for k, v in item.items() if k not in {"name", "centre_mm", "size_mm"}}
        fields[name] = Field(name, x, y, size, item.get("row"), item.get("col"), attrs)
    if not fields:
        raise LayoutError(f"{where}: no fields (give 'grid' or 'fields')")
    return fields
