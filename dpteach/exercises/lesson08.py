"""The exercises of notebook 08 (sensitivity of table transformations): the right answers and the mistakes each
one must catch."""

from __future__ import annotations

import math
from collections import Counter

import pandas as pd

from dpteach import transformations as tr
from dpteach.exercises.core import (
    Choice,
    Example,
    Exercise,
    Invalid,
    Language,
    Mistake,
    Number,
    Scale,
    describe,
    register,
)


def _two_rows(row: dict) -> list[dict[str, str]]:
    """Every row yields exactly two rows, as the data of exercise 1 do."""
    return [{"part": "first"}, {"part": "second"}]


# --- Exercises 1 and 2: factors come from promises and multiply -------------------------------------------------

PROMISED_ROWS, ACTUAL_ROWS, EPSILON_1 = 5, 2, 0.5
CHAIN_MAX_ROWS, CHAIN_KEY_ROWS = 2, 4
EX2_PEOPLE = pd.DataFrame({"name": ["Ada", "Bo"], "genres": ["drama;jazz", "drama"]})
EX2_SHELVES = pd.DataFrame({"genre": ["drama"] * CHAIN_KEY_ROWS + ["jazz"], "shelf": ["A", "B", "C", "D", "E"]})


def flat_map_factor(max_rows: int) -> float:
    """The stability of a flat map promising ``max_rows`` on data where each row yields exactly two rows."""
    people = pd.DataFrame({"name": ["Ada", "Bo"]})
    return tr.flat_map(people, _two_rows, max_rows=max_rows).stability


def public_join_factor(rows_of_busiest_key: int) -> float:
    """The stability of a public join whose most frequent key appears ``rows_of_busiest_key`` times."""
    public = pd.DataFrame({"key": [1] * rows_of_busiest_key + [2]})
    return tr.public_join(pd.DataFrame({"key": [1, 2]}), public, on="key").stability



def chain_seen() -> float:
    """The referee's largest change of the count after exercise 2's flat map and public join, on its tables."""
    steps = [lambda t: tr.flat_map(t, tr.split_genres, max_rows=CHAIN_MAX_ROWS),
             lambda t: tr.public_join(t, EX2_SHELVES, on="genre")]
    return tr.empirical_stability(EX2_PEOPLE, steps, tr.Count()).observed


def chain_bound() -> float:
    return flat_map_factor(CHAIN_MAX_ROWS) * public_join_factor(CHAIN_KEY_ROWS)

# --- Exercise 3: per-ID caps under Laplace and Gaussian noise --------------------------------------------------

GROUPS_3, ROWS_3 = 9, 1


def factors_3(laplace: str = "laplace", gaussian: str = "gaussian", grouped: bool = True) -> tuple[float, ...]:
    """(Laplace factor, Gaussian factor, factor of the total without a group-by) for G = 9, R = 1."""
    return (tr.grouped_truncation_factor(GROUPS_3, ROWS_3, laplace),  # type: ignore[arg-type]
            tr.grouped_truncation_factor(GROUPS_3, ROWS_3, gaussian, grouped),  # type: ignore[arg-type]
            tr.grouped_truncation_factor(GROUPS_3, ROWS_3, "gaussian", grouped=False))


# --- Exercise 5: two tables on which one protected change moves the count by a + b ------------------------------

A5, B5 = 2, 1
MAX_TABLE_ROWS = 10
TableCounts = tuple[tuple[object, int], ...]


def _table_counts(table: object, name: str, language: Language) -> TableCounts:
    """The rows per ``user_id`` of one table (all a count after the join depends on), or :class:`Invalid`."""
    if not isinstance(table, pd.DataFrame):
        raise Invalid({"en": f"{name} must be a pandas DataFrame with a user_id column, got {describe(table)}",
                       "zh": f"{name} 应当是带 user_id 列的 pandas DataFrame，得到的是 {describe(table)}"}[language])
    if "user_id" not in table.columns:
        raise Invalid({"en": f"{name} has no user_id column (its columns: {list(map(str, table.columns))})",
                       "zh": f"{name} 没有 user_id 列（它的列：{list(map(str, table.columns))}）"}[language])
    if len(table) > MAX_TABLE_ROWS:
        raise Invalid({"en": f"{name} has {len(table)} rows; keep each table to at most {MAX_TABLE_ROWS} (the "
                             "referee tries every pair of changes, so its work grows with the product of the sizes)",
                       "zh": f"{name} 有 {len(table)} 行；每张表最多 {MAX_TABLE_ROWS} 行（裁判要尝试每一对改动，"
                             "工作量随两张表行数之积增长）"}[language])
    ids = table["user_id"].tolist()
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in ids):
        raise Invalid({"en": f"the user_id column of {name} holds missing values: give every row a user",
                       "zh": f"{name} 的 user_id 列有缺失值：每一行都要有用户"}[language])
    try:
        counts = Counter(v.item() if hasattr(v, "item") else v for v in ids)
    except TypeError:
        raise Invalid({"en": f"the user_id values of {name} must be numbers or strings",
                       "zh": f"{name} 的 user_id 应当是数或字符串"}[language]) from None
    return tuple(sorted(counts.items(), key=lambda item: repr(item[0])))


def read_join_tables(answer: object, language: Language) -> tuple[TableCounts, TableCounts]:
    """The pair (users, purchases) as the rows per ``user_id`` of each table."""
    if not isinstance(answer, tuple | list) or len(answer) != 2:
        got = "one DataFrame" if isinstance(answer, pd.DataFrame) else describe(answer)
        raise Invalid({"en": f"expected the pair (ex5_users, ex5_purchases), got {got}",
                       "zh": f"应当是一对表 (ex5_users, ex5_purchases)，得到的是 {got}"}[language])
    return (_table_counts(answer[0], "ex5_users", language), _table_counts(answer[1], "ex5_purchases", language))


def largest_join_count_change(tables: tuple[TableCounts, TableCounts]) -> int:
    """The largest change of the private join's count (bounds A5, B5, truncation per user) under one protected
    change: in each table, remove one row, add one row, or leave it alone (at least one changes).

    The tables have one column, so a row is its ``user_id`` and each table is its rows per user: after truncation a
    user joins min(x, a) · min(y, b) rows, and every change is tried exactly, adding rows for any user of either
    table or for a new user, so the answer is exact (not a search over copies of existing rows)."""
    users, purchases = (dict(table) for table in tables)
    keys = [*dict.fromkeys([*users, *purchases]), object()]  # object(): a user in neither table

    def count(u: dict, p: dict) -> int:
        return sum(min(u.get(k, 0), A5) * min(p.get(k, 0), B5) for k in keys)

    def changed(rows: dict) -> list[dict]:
        added = [{**rows, k: rows.get(k, 0) + 1} for k in keys]
        return [rows, *added, *({**rows, k: rows[k] - 1} for k in rows if rows[k] > 0)]

    base = count(users, purchases)
    return max(abs(count(u, p) - base) for u in changed(users) for p in changed(purchases))


def reaches_a_plus_b(answer: object, language: Language) -> str | None:
    tables: tuple[TableCounts, TableCounts] = answer  # type: ignore[assignment]
    seen = largest_join_count_change(tables)
    if seen >= tr.private_join_count_sensitivity(A5, B5, "row"):
        return None
    return {"en": f"on your tables one protected change moves the count by at most {seen:g}, short of the target "
                  f"(a·b = {A5 * B5} and a + b − 1 = {A5 + B5 - 1} fall short too); one protected change may hit "
                  "a row of users and a row of purchases at once",
            "zh": f"在你的表上一次受保护的改动最多让计数变化 {seen:g}，达不到目标（a·b = {A5 * B5}、"
                  f"a + b − 1 = {A5 + B5 - 1} 也达不到）；一次受保护的改动可以同时改 users 的一行和 purchases 的一行"
            }[language]


def _tables(users: list[int], purchases: list[int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    return pd.DataFrame({"user_id": users}), pd.DataFrame({"user_id": purchases})


register(
    Exercise(
        "08.1", "a promise, not the data",
        (Scale(lambda: tr.laplace_scale(flat_map_factor(PROMISED_ROWS), EPSILON_1)),),
        (Mistake(tr.laplace_scale(ACTUAL_ROWS, EPSILON_1),
                 "that uses the two rows the data produce; the factor is the promise max_rows, which holds for "
                 "any input, including a newcomer with many genres"),
         Mistake(PROMISED_ROWS, "that is the sensitivity; the Laplace scale divides it by ε"),
         Mistake(PROMISED_ROWS * EPSILON_1, "the scale divides the sensitivity by ε = 0.5, it does not multiply it")),
    ),
    Exercise(
        "08.2", "a flat map, then a public join: predict, then ask the referee",
        (Number(chain_bound), Number(chain_seen)),
        (Mistake((CHAIN_MAX_ROWS + CHAIN_KEY_ROWS, chain_seen()),
                 "each of the flat map's rows meets every public row with its key: the factors multiply, they "
                 "do not add"),
         Mistake((CHAIN_KEY_ROWS, chain_seen()),
                 "that is the join's factor alone; one input row already became several rows before the join"),
         Mistake((chain_seen(), chain_seen()),
                 "the referee's number describes these two tables only; the bound must hold for every table, "
                 "including a newcomer whose two genres both sit on the busiest shelf"),
         Mistake((chain_bound(), chain_bound()),
                 "the bound is right, but the referee sees less on these tables: look at how many shelf rows "
                 "each of Ada's genres meets")),
    ),
    Exercise(
        "08.3", "per-ID caps: Laplace, Gaussian, no group-by",
        tuple(Number(lambda i=i: factors_3()[i]) for i in range(3)),
        (Mistake(factors_3("gaussian", "laplace"),
                 "the two noises are swapped: Laplace noise is calibrated to the L1 norm R·G, Gaussian noise to "
                 "the L2 norm R·√G"),
         Mistake(factors_3()[:2] + (factors_3()[1],),
                 "without a group-by every kept row of the patient lands in one number: the square root needs "
                 "the change spread over G counts"),
         Mistake(factors_3("laplace", "laplace"),
                 "the Gaussian mechanism is calibrated to the L2 norm of the change, √(G·R²), not to its L1 "
                 "norm")),
    ),
    Exercise(
        "08.4", "why a public join may read its factor from the data",
        (Choice(("a", "b", "c", "d"), "c"),),
        (Mistake("a", "ZIP codes are an example; a public table may repeat a key any number of times, and the "
                      "join's factor follows it"),
         Mistake("b", "size is not the reason: a private table's key counts are as easy to compute, but they "
                      "depend on the people in it"),
         Mistake("d", "noise scaled to a count read from private data would itself reveal that count: the "
                      "bound must be fixed without looking")),
    ),
    Exercise(
        "08.5", "two tables on which the count moves by a + b",
        (Example(read_join_tables, reaches_a_plus_b),),
        (Mistake(_tables([1, 1], [1]),
                 "one user only: both changes hit the same key, so the count moves by at most "
                 "a + b − 1 = 2; use two users"),
         Mistake(_tables([1], [1]),
                 "with one user both changes hit the same key, and x'·y' − x·y stays within a + b − 1"),
         Mistake(_tables([1, 2], [1, 2]),
                 "two users, but the one who loses a purchase has a single users row: a removal takes as many "
                 "joined rows as the other side keeps for that user, up to a"),
         Mistake(_tables([1, 2], [1, 1, 1, 2]),
                 "these are section 3's tables for a = 1, b = 3; here a = 2 and b = 1, so mirror them: the extra "
                 "rows belong in users"),
         Mistake(_tables([1, 1, 1], [1, 1]),
                 "every row here beyond the bounds is truncated away, so removing one is absorbed by the next; "
                 "only a brand-new user moves the count, by 1")),
    ),
)
