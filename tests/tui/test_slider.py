"""The Slider widget in a tiny app: keys, ends, clamping, snapping, click and drag."""

from __future__ import annotations

from decimal import Decimal

import pytest
from textual import on
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from bottui.tui.widgets.threshold_field import Slider, format_number

WIDTH = 40
# show_value on a 0..1 slider with step 0.01 reserves "0.00" plus a space.
BAR = WIDTH - 5


class SliderApp(App[None]):
    """One slider and the Changed messages it posted."""

    def __init__(self, slider: Slider) -> None:
        super().__init__()
        self.slider = slider
        self.changes: list[tuple[float, str]] = []

    def compose(self) -> ComposeResult:
        yield self.slider

    def on_mount(self) -> None:
        self.slider.focus()

    @on(Slider.Changed)
    def _changed(self, event: Slider.Changed) -> None:
        assert event.control is self.slider
        self.changes.append((event.value, event.text))


async def run(slider: Slider, *keys: str) -> SliderApp:
    app = SliderApp(slider)
    async with app.run_test(size=(WIDTH, 3)) as pilot:
        await pilot.press(*keys)
        await pilot.pause()
    return app


async def test_arrows_move_by_the_fine_step() -> None:
    app = await run(Slider(0.5), "right", "right", "up", "left", "down", "down")
    assert [text for _, text in app.changes] == ["0.51", "0.52", "0.53", "0.52", "0.51", "0.5"]
    assert app.slider.value == 0.5


async def test_shift_arrows_and_page_keys_move_by_the_coarse_step() -> None:
    app = await run(Slider(0.5), "shift+right", "shift+left", "shift+left", "pageup", "pagedown")
    assert [text for _, text in app.changes] == ["0.6", "0.5", "0.4", "0.5", "0.4"]


async def test_home_and_end_jump_to_the_ends() -> None:
    app = await run(Slider(0.37, minimum=-1, maximum=2), "end", "home")
    assert app.changes == [(2.0, "2"), (-1.0, "-1")]


async def test_clamped_at_the_ends_and_silent_when_nothing_moves() -> None:
    app = await run(Slider(0.99), "right", "right", "right", "end")
    assert app.changes == [(1.0, "1")]
    app = await run(Slider(0.0), "left", "home", "shift+left")
    assert app.changes == []
    assert app.slider.value == 0.0


async def test_steps_are_snapped_without_float_noise() -> None:
    # 0.1 + 0.2 is 0.30000000000000004 in floats: the slider says 0.3.
    app = await run(Slider(0.1, step=0.1), "right", "right")
    assert app.changes[-1] == (0.3, "0.3")
    assert repr(app.slider.value) == "0.3"
    app = await run(Slider(0.0, maximum=0.7), *["right"] * 3)
    # The default step is a hundredth of the range, computed exactly: 0.007.
    assert [text for _, text in app.changes] == ["0.007", "0.014", "0.021"]


async def test_an_off_grid_value_steps_to_its_grid_neighbours() -> None:
    app = await run(Slider(0.123456789), "right")
    assert app.changes == [(0.13, "0.13")]
    app = await run(Slider(0.123456789), "left")
    assert app.changes == [(0.12, "0.12")]


async def test_coarse_step_is_a_whole_number_of_fine_steps() -> None:
    slider = Slider(0, minimum=0, maximum=100, step=5, coarse_step=20)
    assert slider.coarse_steps == 4
    app = await run(slider, "right", "shift+right")
    assert [text for _, text in app.changes] == ["5", "25"]


async def test_setting_the_value_from_code_posts_nothing_and_clamps() -> None:
    slider = Slider(0.5)
    app = SliderApp(slider)
    async with app.run_test(size=(WIDTH, 3)) as pilot:
        slider.value = 0.123456789
        await pilot.pause()
        assert slider.value == 0.123456789
        slider.value = 7.0
        await pilot.pause()
        assert slider.value == 1.0
        assert app.changes == []


async def test_renders_plain_characters_with_the_thumb_and_value() -> None:
    slider = Slider(0.5)
    app = SliderApp(slider)
    async with app.run_test(size=(WIDTH, 3)) as pilot:
        await pilot.pause()
        text = slider.render().plain
        assert len(text) == WIDTH
        assert text.endswith(" 0.5")
        bar = text[:BAR]
        assert bar.index("◉") == slider.thumb_column() == round(0.5 * (BAR - 1))
        assert set(bar[: bar.index("◉")]) == {"━"} and set(bar[bar.index("◉") + 1 :]) == {"─"}
        slider.blur()
        await pilot.pause()
        assert "●" in slider.render().plain  # the focused thumb differs without colour


async def _click(pilot: Pilot[None], slider: Slider, x: int) -> None:
    await pilot.click(slider, offset=(x, 0))
    await pilot.pause()


async def test_a_click_sets_the_value_under_the_cell() -> None:
    slider = Slider(0.5)
    app = SliderApp(slider)
    async with app.run_test(size=(WIDTH, 3)) as pilot:
        await _click(pilot, slider, 0)
        assert slider.value == 0.0
        await _click(pilot, slider, BAR - 1)
        assert slider.value == 1.0
        await _click(pilot, slider, 17)  # 17 / 34 of the way
        assert slider.value == 0.5
        await _click(pilot, slider, 10)  # 10 / 34 = 0.294...
        assert slider.value == 0.29
        assert slider.thumb_column() == 10
        assert [text for _, text in app.changes] == ["0", "1", "0.5", "0.29"]


async def test_drag_follows_the_mouse_and_releases_it() -> None:
    slider = Slider(0.0)
    app = SliderApp(slider)
    async with app.run_test(size=(WIDTH, 3)) as pilot:
        await pilot.mouse_down(slider, offset=(5, 0))
        assert app.mouse_captured is slider
        await pilot.hover(slider, offset=(20, 0))
        await pilot.pause()
        assert slider.value == float(slider.value_at(20))
        # Past the end of the bar (over the label): the maximum.
        await pilot.hover(slider, offset=(WIDTH - 1, 0))
        await pilot.mouse_up(slider, offset=(WIDTH - 1, 0))
        await pilot.pause()
        assert slider.value == 1.0
        assert app.mouse_captured is None
        texts = [text for _, text in app.changes]
        assert texts[0] == format_number(slider.value_at(5)) and texts[-1] == "1"
        # After the release, moving the mouse moves nothing.
        await pilot.hover(slider, offset=(3, 0))
        await pilot.pause()
        assert slider.value == 1.0


def test_value_at_maps_columns_onto_the_range() -> None:
    slider = Slider(0, minimum=10, maximum=20, step=0.5, show_value=False)
    # Not mounted: a zero width, so the bar is the minimum of two cells.
    assert slider.value_at(-3) == Decimal(10)
    assert slider.value_at(1) == Decimal(20)
    assert slider.snap(14.26) == Decimal("14.5")
    assert slider.snap(99) == Decimal(20)


def test_format_number() -> None:
    assert format_number(Decimal("0.30")) == "0.3"
    assert format_number(10.0) == "10"
    assert format_number(-0.0) == "0"
    assert format_number(1e-7) == "0.0000001"


def test_refuses_an_empty_range() -> None:
    with pytest.raises(ValueError):
        Slider(0, minimum=1, maximum=1)
    with pytest.raises(ValueError):
        Slider(0, minimum=0, maximum=float("inf"))


def test_bindings_have_ids_and_descriptions() -> None:
    from textual.binding import Binding

    bindings = [b for b in Slider.BINDINGS if isinstance(b, Binding)]
    assert len(bindings) == len(Slider.BINDINGS) == 6
    assert all(b.id and b.id.startswith("slider.") and b.description for b in bindings)
    keys = ",".join(b.key for b in bindings).split(",")
    for key in ("left", "right", "up", "down", "shift+left", "shift+right", "home", "end"):
        assert key in keys
