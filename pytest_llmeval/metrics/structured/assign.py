"""Stage 3: best assignment of answer items to gold items (the Hungarian method, stdlib only).

O(n^2 m) for an n x m matrix with n <= m; checked against ``scipy.optimize.linear_sum_assignment``
in the tests rather than importing scipy at run time.
"""

from __future__ import annotations

from collections.abc import Sequence


def best_assignment(similarity: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """(row, column) pairs maximising total similarity; each row and column used at most once."""
    rows = len(similarity)
    cols = len(similarity[0]) if rows else 0
    if not rows or not cols:
        return []
    transpose = rows > cols
    matrix = (
        [list(r) for r in zip(*similarity, strict=True)]
        if transpose
        else [list(r) for r in similarity]
    )
    n, m = len(matrix), len(matrix[0])
    cost = [[1.0 - value for value in row] for row in matrix]
    inf = float("inf")
    u, v = [0.0] * (n + 1), [0.0] * (m + 1)
    owner, way = [0] * (m + 1), [0] * (m + 1)  # owner[j]: row (1-based) holding column j
    for i in range(1, n + 1):
        owner[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = owner[j0], inf, 0
            for j in range(1, m + 1):
                if not used[j]:
                    current = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if current < minv[j]:
                        minv[j], way[j] = current, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(m + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    pairs = [(owner[j] - 1, j - 1) for j in range(1, m + 1) if owner[j]]
    if transpose:
        pairs = [(c, r) for r, c in pairs]
    return sorted(pairs)
