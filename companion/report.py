"""Plain-text descriptions of a game for the terminal."""

from __future__ import annotations

from companion.core import Game


def describe_position(game: Game) -> str:
    """One line: round, whose turn, throws, running scores."""
    scores = ", ".join(f"{p} {s.total}" for p, s in game.scores().items())
    if game.is_over:
        return f"game over: {game.outcome} | {scores}"
    text = f"{game.round_text}, {game.current_player} to play"
    if game.uses_dice:
        text += f", throw {game.throw_count}/{game.max_throws}"  # type: ignore[attr-defined]
    return f"{text} | {scores}"


def final_report(game: Game) -> str:
    """The end of a game as a person reads it: outcome, then each score line by line."""
    state = game.outcome if game.is_over else f"not finished, {game.round_text}"
    lines = [f"{game.title}: {state}"]
    for player, score in game.scores().items():
        lines.append(f"  {player}: {score.total} points")
        lines.extend(f"      {line.points:+4}  {line.label}" for line in score.lines)
    return "\n".join(lines)
