"""A closed-grammar parser for plain arithmetic answers ("1/2", "2^10", "3 1/2", "(1+2)×3").

Model output must never reach sympy's string parsers (``sympify``/``parse_expr``
call ``eval``), so plain expressions are parsed here instead.  The grammar only
knows numbers, ``+ - * × / ÷ ^ **`` and parentheses::

    expr   := term (("+" | "-") term)*
    term   := unary (("*" | "×" | "/" | "÷") unary)*
    unary  := ("+" | "-") unary | power
    power  := atom (("^" | "**") unary)?
    atom   := NUMBER | "(" expr ")"

A whole expression of the form ``a b/c`` (integer, space, proper fraction) is a
mixed number, a + b/c.  The AST is plain tuples; :func:`to_sympy` builds
unevaluated sympy objects from it (sympy is imported there, inside the worker).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

__all__ = ["ExprSyntaxError", "parse_plain", "to_fraction", "to_sympy"]

Node = tuple[Any, ...]  # ("num", "12") | ("neg", node) | (op, node, node)

_TOKEN_RE = re.compile(r"\s*(?:(\d+\.\d*|\.\d+|\d+)|(\*\*|[-+*/^()×÷]))")
# The whole part and the fraction share a line: "11\n5/6" is not 11 5/6.
_MIXED_RE = re.compile(r"^\s*(-?)[ \t]*(\d+)[ \t]+(\d+)[ \t]*/[ \t]*(\d+)\s*$")
_MAX_LEN = 500
_MAX_DEPTH = 60


class ExprSyntaxError(ValueError):
    """The text is not in the plain-expression grammar."""


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if m is None or m.end() == pos:
            raise ExprSyntaxError(f"unexpected character {text[pos : pos + 1]!r} at {pos}")
        num, op = m.groups()
        if num is not None:
            if tokens and tokens[-1][0] == "num":
                raise ExprSyntaxError("two numbers without an operator")
            tokens.append(("num", num))
        else:
            tokens.append(("op", {"×": "*", "÷": "/", "**": "^"}.get(op, op)))
        pos = m.end()
    return tokens


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos][1] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        if self.pos >= len(self.tokens):
            raise ExprSyntaxError("unexpected end of expression")
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise ExprSyntaxError("expression nested too deeply")

    def expr(self) -> Node:
        self._enter()
        node = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()[1]
            node = ("add" if op == "+" else "sub", node, self.term())
        self.depth -= 1
        return node

    def term(self) -> Node:
        node = self.unary()
        while self.peek() in ("*", "/"):
            op = self.take()[1]
            node = ("mul" if op == "*" else "div", node, self.unary())
        return node

    def unary(self) -> Node:
        self._enter()
        if self.peek() in ("+", "-"):
            op = self.take()[1]
            inner = self.unary()
            self.depth -= 1
            return ("neg", inner) if op == "-" else inner
        node = self.power()
        self.depth -= 1
        return node

    def power(self) -> Node:
        base = self.atom()
        if self.peek() == "^":
            self.take()
            return ("pow", base, self.unary())
        return base

    def atom(self) -> Node:
        kind, value = self.take()
        if kind == "num":
            return ("num", value)
        if value == "(":
            node = self.expr()
            if self.take()[1] != ")":
                raise ExprSyntaxError("missing ')'")
            return node
        raise ExprSyntaxError(f"unexpected {value!r}")


def parse_plain(text: str) -> Node:
    """Parse ``text`` into a tuple AST; :class:`ExprSyntaxError` if it is not in the grammar."""
    if len(text) > _MAX_LEN:
        raise ExprSyntaxError(f"expression longer than {_MAX_LEN} characters")
    mixed = _MIXED_RE.match(text)
    if mixed and int(mixed.group(3)) < int(mixed.group(4)):
        sign, whole, num, den = mixed.groups()
        node: Node = ("add", ("num", whole), ("div", ("num", num), ("num", den)))
        return ("neg", node) if sign else node
    parser = _Parser(_tokenize(text))
    if not parser.tokens:
        raise ExprSyntaxError("empty expression")
    node = parser.expr()
    if parser.pos != len(parser.tokens):
        raise ExprSyntaxError(f"unexpected {parser.peek()!r}")
    return node


def to_fraction(node: Node) -> Fraction:
    """Exact value of an AST without powers (used by the in-process fast path)."""
    kind = node[0]
    if kind == "num":
        return Fraction(node[1])
    if kind == "neg":
        return -to_fraction(node[1])
    a, b = to_fraction(node[1]), to_fraction(node[2])
    if kind == "add":
        return a + b
    if kind == "sub":
        return a - b
    if kind == "mul":
        return a * b
    if kind == "div":
        if b == 0:
            raise ZeroDivisionError("division by zero")
        return a / b
    raise ExprSyntaxError(f"{kind} is not evaluated in-process")


def to_sympy(node: Node) -> Any:
    """Build an unevaluated sympy expression (as ``parse_expr(..., evaluate=False)`` would)."""
    import sympy

    kind = node[0]
    if kind == "num":
        text = node[1]
        assert isinstance(text, str)
        if "." in text:
            digits = len(text.replace(".", "").lstrip("0"))
            return sympy.Float(text, max(15, digits))
        return sympy.Integer(int(text))
    if kind == "neg":
        inner = to_sympy(node[1])
        if isinstance(inner, sympy.Number):
            return -inner
        return sympy.Mul(sympy.Integer(-1), inner, evaluate=False)
    a, b = to_sympy(node[1]), to_sympy(node[2])
    if kind == "add":
        return sympy.Add(a, b, evaluate=False)
    if kind == "sub":
        return sympy.Add(a, sympy.Mul(sympy.Integer(-1), b, evaluate=False), evaluate=False)
    if kind == "mul":
        return sympy.Mul(a, b, evaluate=False)
    if kind == "div":
        return sympy.Mul(a, sympy.Pow(b, sympy.Integer(-1), evaluate=False), evaluate=False)
    if kind == "pow":
        return sympy.Pow(a, b, evaluate=False)
    raise ExprSyntaxError(f"unknown node {kind}")
