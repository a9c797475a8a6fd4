"""The progress line the training loop and the evaluation command share."""

import io

from hexjax.training.progress import ProgressLine


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_on_a_terminal_the_line_is_redrawn_in_place_and_can_be_erased():
    stream = Terminal()
    line = ProgressLine(stream=stream)
    line.update("1/4 games")
    line.update("2/4 games")
    line.close(clear=True)
    assert stream.getvalue() == "\r\033[K1/4 games\r\033[K2/4 games\r\033[K"
    assert "\n" not in stream.getvalue()


def test_off_a_terminal_plain_lines_and_the_last_one_at_the_end():
    stream = io.StringIO()
    line = ProgressLine(every=3600.0, stream=stream)  # only the first update is due at once
    for done in range(4):
        line.update(f"{done}/3 games")
    line.close()
    assert stream.getvalue() == "0/3 games\n3/3 games\n"
