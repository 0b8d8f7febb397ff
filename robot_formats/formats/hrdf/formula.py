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
#: An operand, in one match (its group, ``lastindex``, says which kind): a C hexadecimal
#: number (tried first: a number would take its ``0``), a number, or a word (``pi``, or a name
#: a formula may not use).
_OPERAND = re.compile(r'(0[xX][0-9a-fA-F]+)|((?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)'
                      r'|([A-Za-z_][A-Za-z_0-9]*)')
_A_HEXADECIMAL, _A_NUMBER = 1, 2
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


#: One token: (kind, text, position, value); kind is 'num', 'pi', 'op', '(', ')' or 'end'.
_Token = tuple[str, str, int, float]


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
            out.append(('op', ch, i, 0.0))
            i += 1
            continue
        if ch in '()':
            out.append((ch, ch, i, 0.0))
            i += 1
            continue
        operand = _OPERAND.match(text, i)
        if operand is None:
            raise FormulaError(f'unexpected character {ch!r}', i)
        token, kind = operand.group(), operand.lastindex
        if kind == _A_NUMBER:
            out.append(('num', token, i, float(token)))
        elif kind == _A_HEXADECIMAL:
            quirks.append(Quirk(f'{token!r} is a C hexadecimal number, not part of the HRDF '
                                f'formula grammar; read as {int(token, 16)} as HEBI\'s library '
                                'does'))
            out.append(('num', token, i, float(int(token, 16))))
        elif token == 'pi':
            out.append(('pi', 'pi', i, math.pi))
        else:
            hint = " (the constant is 'pi', lower case)" if token.lower() == 'pi' else ''
            raise FormulaError(f'unknown name {token!r}{hint}', i)
        i = operand.end()
    out.append(('end', '', n, 0.0))
    return out


class _Parser:
    """One formula: ``parse()`` returns its value or raises FormulaError. ``kind``, ``text``
    and ``position`` are those of the current token (the next one to read)."""

    def __init__(self, text: str, quirks: list[Quirk]) -> None:
        self.text = text
        self.quirks = quirks
        self.tokens = _tokens(text, quirks)
        self.index = 0
        self.kind, self.token_text, self.position, _ = self.tokens[0]

    def advance(self) -> _Token:
        """The current token; the next one becomes current (the end token stays)."""
        token = self.tokens[self.index]
        if self.kind != 'end':
            self.index += 1
            self.kind, self.token_text, self.position, _ = self.tokens[self.index]
        return token

    def parse(self) -> float:
        if self.kind == 'end':
            raise FormulaError('empty value', 0)
        value = self.sum(0)
        if self.kind != 'end':
            previous = self.tokens[self.index - 1]
            if self.kind == 'num' and previous[0] == 'num':
                raise FormulaError(f'{previous[1]!r} is followed by {self.token_text!r}: a '
                                   "number has at most one '.', no spaces and no commas",
                                   self.position)
            if self.kind in ('num', 'pi', '('):
                raise FormulaError(f'missing operator before {self.token_text!r} (write 2*pi, '
                                   'not 2 pi)', self.position)
            raise FormulaError(f'unexpected {self.token_text!r}', self.position)
        return value

    def sum(self, depth: int) -> float:
        value = self.product(depth)
        while self.kind == 'op' and self.token_text in '+-':
            op = self.advance()[1]
            right = self.product(depth)
            value = value + right if op == '+' else value - right
        return value

    def product(self, depth: int) -> float:
        value = self.unary(depth + 1)
        while self.kind == 'op' and self.token_text in '*/':
            op = self.advance()[1]
            if self.kind == 'op' and self.token_text in '+-':
                self.quirks.append(Quirk(f'a sign right after {op!r} is valid HRDF but HEBI\'s '
                                         'library rejects it; write it in parentheses, e.g. '
                                         '2*(-1)'))
            right = self.unary(depth + 1)
            value = value * right if op == '*' else _divide(value, right)
        return value

    def unary(self, depth: int) -> float:
        """A signed operand, ``depth`` signs and parentheses deep."""
        if depth > _MAX_DEPTH:
            raise FormulaError(f'nested more than {_MAX_DEPTH} levels deep', self.position)
        if self.kind == 'op' and self.token_text in '+-':
            _, sign, position, _ = self.advance()
            if sign == '+' and position == _first_non_space(self.text):
                self.quirks.append(Quirk("a leading '+' is valid HRDF but HEBI's library "
                                         'rejects it'))
            value = self.unary(depth + 1)
            return -value if sign == '-' else value
        return self.primary(depth)

    def primary(self, depth: int) -> float:
        kind, text, position, value = self.advance()
        if kind in ('num', 'pi'):
            return value
        if kind == '(':
            value = self.sum(depth)
            if self.kind != ')':
                raise FormulaError("missing ')'" if self.kind == 'end'
                                   else f"expected ')' before {self.token_text!r}",
                                   self.position)
            self.advance()
            return value
        if kind == 'end':
            raise FormulaError('the formula ends where a number was expected', position)
        raise FormulaError(f'expected a number, pi or "(" but found {text!r}', position)


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
