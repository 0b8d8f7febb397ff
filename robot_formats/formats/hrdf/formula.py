"""HRDF's "floating point formula" type: a recursive-descent parser, never ``eval``.

Grammar (HRDF 1.6.0, FORMAT.md "floating point formula" and HEBI's GRAMMAR.md)::

    formula := sum
    sum     := product (('+' | '-') product)*
    product := unary (('*' | '/') unary)*
    unary   := ('-' | '+') unary | primary
    primary := number | 'pi' | '(' sum ')'
    number  := digits ['.' digits*] [exponent] | '.' digits [exponent]
    exponent:= ('e' | 'E') ['+' | '-'] digits

Whitespace (space, tab, CR, LF) is allowed between tokens, never inside a number (``1. 02``
is two numbers, an error). ``pi`` is case sensitive. Two operands with no operator between
them (``2 pi``, ``2.4.3`` = ``2.4`` ``.3``) are an error.

Where HEBI's library (hebi-py 2.16.1, C API 2.27.0) departs from the grammar we follow the
grammar and say so in a :class:`Quirk` the reader turns into a warning:

* a leading unary ``+`` (``+1``) and a unary minus right after ``*`` or ``/`` (``2*-1``) are
  valid by the grammar; HEBI rejects them;
* a C hexadecimal number (``0x10``) is not in the grammar; HEBI reads it (as 16), so we read
  it too, with a warning;
* ``1/0`` is ``inf`` and ``0/0`` NaN in HEBI (IEEE arithmetic); we compute the same and let
  the caller decide what a non-finite value means for its attribute.

Version 1.0.0 had no formulas: HEBI reads every scalar as its leading number (C ``strtod``
prefix, 0 when there is none). :func:`leading_number` does that.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = ['FormulaError', 'Quirk', 'evaluate', 'leading_number', 'is_plain_number',
           'PLAIN_NUMBER']

#: The spec's "floating point" type (what 9-number rotation matrices are made of).
PLAIN_NUMBER = re.compile(r'[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?')
_NUMBER = re.compile(r'(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?')
_HEX = re.compile(r'0[xX][0-9a-fA-F]+')
_WORD = re.compile(r'[A-Za-z_][A-Za-z_0-9]*')
_STRTOD_PREFIX = re.compile(r'\s*([-+]?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?))')
_WHITESPACE = ' \t\r\n'
#: Deepest nesting of parentheses and signs (keeps Python's recursion limit out of reach).
_MAX_DEPTH = 100


class FormulaError(ValueError):
    """The text is not a formula; ``position`` is the 0-based offset of the problem."""

    def __init__(self, reason: str, position: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.position = position


@dataclass(frozen=True, slots=True)
class Quirk:
    """Something valid here that HEBI's library reads differently (or refuses)."""

    message: str


class _Token:
    """One token (a plain slotted class: a formula is tokenised on every load)."""

    __slots__ = ('kind', 'text', 'position', 'value')

    def __init__(self, kind: str, text: str, position: int, value: float = 0.0) -> None:
        self.kind = kind          # 'num', 'pi', 'op', '(', ')', 'end'
        self.text = text
        self.position = position
        self.value = value


def is_plain_number(text: str) -> bool:
    """True if ``text`` is exactly one spec "floating point" value (``-3.24E-2``, ``1.``)."""
    return PLAIN_NUMBER.fullmatch(text) is not None


def leading_number(text: str) -> float:
    """What C ``strtod`` (HEBI 1.0.0 files, translation vectors) reads: the leading number of
    ``text`` after leading whitespace, or 0.0 when it does not start with one."""
    match = _STRTOD_PREFIX.match(text)
    if match is None:
        return 0.0
    token = match.group(1)
    body = token.lstrip('+-')
    sign = -1.0 if token.startswith('-') else 1.0
    if body[:2].lower() == '0x':
        return sign * float(int(body, 16))
    return sign * float(body)


def _tokens(text: str, quirks: list[Quirk]) -> list[_Token]:
    out: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _WHITESPACE:
            i += 1
            continue
        if ch in '+-*/':
            out.append(_Token('op', ch, i))
            i += 1
            continue
        if ch in '()':
            out.append(_Token(ch, ch, i))
            i += 1
            continue
        hexa = _HEX.match(text, i)
        if hexa:
            quirks.append(Quirk(f'{hexa.group()!r} is a C hexadecimal number, not part of the '
                                f'HRDF formula grammar; read as {int(hexa.group(), 16)} as '
                                "HEBI's library does"))
            out.append(_Token('num', hexa.group(), i, float(int(hexa.group(), 16))))
            i = hexa.end()
            continue
        number = _NUMBER.match(text, i)
        if number:
            out.append(_Token('num', number.group(), i, float(number.group())))
            i = number.end()
            continue
        word = _WORD.match(text, i)
        if word:
            if word.group() != 'pi':
                hint = " (the constant is 'pi', lower case)" if word.group().lower() == 'pi' \
                    else ''
                raise FormulaError(f'unknown name {word.group()!r}{hint}', i)
            out.append(_Token('pi', 'pi', i, math.pi))
            i = word.end()
            continue
        raise FormulaError(f'unexpected character {ch!r}', i)
    out.append(_Token('end', '', n))
    return out


class _Parser:
    """One formula: ``parse()`` returns its value or raises FormulaError."""

    def __init__(self, text: str, quirks: list[Quirk]) -> None:
        self.text = text
        self.quirks = quirks
        self.tokens = _tokens(text, quirks)
        self.index = 0
        self.depth = 0

    @property
    def current(self) -> _Token:
        return self.tokens[self.index]

    def advance(self) -> _Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def parse(self) -> float:
        if self.current.kind == 'end':
            raise FormulaError('empty value', 0)
        value = self.sum()
        token = self.current
        if token.kind != 'end':
            previous = self.tokens[self.index - 1]
            if token.kind == 'num' and previous.kind == 'num':
                raise FormulaError(f'{previous.text!r} is followed by {token.text!r}: a number '
                                   "has at most one '.', no spaces and no commas",
                                   token.position)
            if token.kind in ('num', 'pi', '('):
                raise FormulaError(f'missing operator before {token.text!r} (write 2*pi, '
                                   'not 2 pi)', token.position)
            raise FormulaError(f'unexpected {token.text!r}', token.position)
        return value

    def sum(self) -> float:
        value = self.product()
        while self.current.kind == 'op' and self.current.text in '+-':
            op = self.advance().text
            right = self.product()
            value = value + right if op == '+' else value - right
        return value

    def product(self) -> float:
        value = self.unary()
        while self.current.kind == 'op' and self.current.text in '*/':
            op = self.advance().text
            if self.current.kind == 'op' and self.current.text in '+-':
                self.quirks.append(Quirk(f'a sign right after {op!r} is valid HRDF but HEBI\'s '
                                         'library rejects it; write it in parentheses, e.g. '
                                         '2*(-1)'))
            right = self.unary()
            value = value * right if op == '*' else _divide(value, right)
        return value

    def unary(self) -> float:
        self.depth += 1
        try:
            return self._unary()
        finally:
            self.depth -= 1

    def _unary(self) -> float:
        token = self.current
        if self.depth > _MAX_DEPTH:
            raise FormulaError(f'nested more than {_MAX_DEPTH} levels deep', token.position)
        if token.kind == 'op' and token.text in '+-':
            self.advance()
            if token.text == '+' and token.position == _first_non_space(self.text):
                self.quirks.append(Quirk("a leading '+' is valid HRDF but HEBI's library "
                                         'rejects it'))
            value = self.unary()
            return -value if token.text == '-' else value
        return self.primary()

    def primary(self) -> float:
        token = self.advance()
        if token.kind in ('num', 'pi'):
            return token.value
        if token.kind == '(':
            value = self.sum()
            if self.current.kind != ')':
                raise FormulaError("missing ')'" if self.current.kind == 'end'
                                   else f"expected ')' before {self.current.text!r}",
                                   self.current.position)
            self.advance()
            return value
        if token.kind == 'end':
            raise FormulaError('the formula ends where a number was expected', token.position)
        raise FormulaError(f'expected a number, pi or "(" but found {token.text!r}',
                           token.position)


def _first_non_space(text: str) -> int:
    return len(text) - len(text.lstrip(_WHITESPACE))


def _divide(left: float, right: float) -> float:
    """IEEE division as HEBI's C library does it: x/0 = ±inf, 0/0 = NaN."""
    if right == 0.0:
        if left == 0.0 or math.isnan(left):
            return math.nan
        return math.copysign(math.inf, left) * math.copysign(1.0, right)
    return left / right


def evaluate(text: str, quirks: list[Quirk] | None = None) -> float:
    """The value of the formula ``text``.

    Raises:
        FormulaError: ``text`` is not a formula (reason and position inside ``text``).
    """
    collected: list[Quirk] = [] if quirks is None else quirks
    return _Parser(text, collected).parse()
