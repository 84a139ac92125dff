"""The exercises of notebook 10 (auditing privacy by experiment): the right answers and the mistakes each one must
catch.

Every audit here runs with the fixed seed :data:`AUDIT_SEED`, from which :func:`dpteach.audit.audit` derives the
``numpy.random.Generator`` of each of its streams, so the expected values are the same on every run and machine.
"""

from __future__ import annotations

import dataclasses
import math
from functools import cache

import numpy as np

from dpteach import audit
from dpteach.exercises.core import Choice, Exercise, Function, Mistake, Number, register
from dpteach.saa import contiguous_layout

AUDIT_SEED = 0
"""The seed of every audit below; ``AuditCase.run()`` and ``audit.audit`` default to it, as in the notebook."""

# --- Exercise 1: the audit's resolution ------------------------------------------------------------------------

FEW_RUNS = 5_000


def book_ptr_at_claimed_epsilon() -> audit.AuditCase:
    """The book's PTR audited against the ε it claims, on the pair at distance 0 | 1."""
    return audit.case(audit.PTR_PAIRS[1], "book, ε")


@cache
def book_ptr_audit(n_samples: int) -> audit.AuditResult:
    return dataclasses.replace(book_ptr_at_claimed_epsilon(), n_samples=n_samples).run(seed=AUDIT_SEED)


@cache
def book_ptr_audit_without_delta(n_samples: int) -> audit.AuditResult:
    """The slip of calling ``audit.audit`` by hand and leaving ``delta`` at its default 0."""
    case = book_ptr_at_claimed_epsilon()
    return audit.audit(case.mechanism, case.pair.x, case.pair.x_prime, case.epsilon, n_samples=n_samples,
                       seed=AUDIT_SEED)


def resolution(n_samples: int, p: float | None = None, delta: float | None = None) -> float:
    """The audit's resolution :func:`dpteach.audit.detection_threshold` with ``n_samples`` runs per dataset at the
    event of probability ``p``: by default the one where theory puts the case's largest violation, and the case's
    ``delta`` (``delta=0.0`` is the slip of leaving it out)."""
    case = book_ptr_at_claimed_epsilon()
    p = case.theory()[1] if p is None else p
    delta = case.delta if delta is None else delta
    return audit.detection_threshold(p, case.epsilon, delta, n_samples=n_samples)[2]


# --- Exercise 2: enough chunks ---------------------------------------------------------------------------------

CHUNKS_RECORDS = len(audit.CHUNKS_PAIR.x)


@cache
def chunks_audit(n_chunks: int, noise_for: str = "K") -> float:
    """ε̂ of contiguous sample-and-aggregate of each chunk's maximum on the chunk-count pair, at ε = 1."""
    sampler = audit.saa_batch(np.max, n_chunks, audit.LOWER, audit.UPPER, 1.0, noise_for=noise_for)  # type: ignore[arg-type]
    pair = audit.CHUNKS_PAIR
    return audit.audit(sampler, pair.x, pair.x_prime, 1.0, seed=AUDIT_SEED).epsilon_lower


def book_loss(n_chunks: int) -> float:
    """The privacy loss, in multiples of ε, of the book's noise for K chunks when fewer may form: K / c."""
    return n_chunks / contiguous_layout(CHUNKS_RECORDS, n_chunks)[1]


def chunks_answer(loss: float) -> tuple[float, float, float]:
    return chunks_audit(6), chunks_audit(8), loss


# --- Exercise 3: sorted_loss(n_records, n_chunks) --------------------------------------------------------------

SORTED_CASES: tuple[tuple[int, int], ...] = (
    (10, 5),         # chunks of 2, exactly K form
    (11, 10),        # chunks of 2, only 6 form
    (32_561, 600),   # the census size of notebook 05: 593 chunks
    (7, 7),          # one record per chunk (with K <= n, only when n = K): sorting only reorders the answers
    (100, 99),       # chunks of 2, 50 form
    (5, 4),          # chunks of 2, the last one short
    (1, 1),          # the smallest: one record, one chunk
    (9, 1),          # one chunk holds everything
)


def sorted_cases() -> tuple[tuple[int, int], ...]:
    return SORTED_CASES


def show_sorted_case(case: tuple) -> str:
    return f"n_records = {case[0]}, n_chunks = {case[1]}"


def sorted_loss_truth(n_records: int, n_chunks: int) -> float:
    """c, the number of chunks formed, or 1 when each chunk holds one record: sorting then only reorders the
    answers, whose mean ignores order, so one replacement moves one answer."""
    size, formed = contiguous_layout(n_records, n_chunks)
    return 1.0 if size == 1 else float(formed)


def mistake_one_record_chunks(n_records: int, n_chunks: int) -> float:
    """Gives c even when every chunk holds one record, where sorting cannot move a record into another answer."""
    return float(contiguous_layout(n_records, n_chunks)[1])


def mistake_k(n_records: int, n_chunks: int) -> float:
    """Takes K itself, as if K chunks always formed."""
    return float(n_chunks)


def mistake_chunk_size(n_records: int, n_chunks: int) -> float:
    """Returns the chunk size ⌈n/K⌉ instead of the number of chunks it forms."""
    return float(math.ceil(n_records / n_chunks))


def mistake_floor(n_records: int, n_chunks: int) -> float:
    """Counts whole chunks only (floor), dropping the last, shorter chunk."""
    return float(n_records // math.ceil(n_records / n_chunks))


def mistake_unsorted(n_records: int, n_chunks: int) -> float:
    """Gives the loss of data left in their order, where a replaced record lands in one chunk only."""
    return 1.0


def mistake_one_chunk_kept(n_records: int, n_chunks: int) -> float:
    """Reads the loss our pair reached (its last chunk is the same on both sides) as the worst case."""
    return float(contiguous_layout(n_records, n_chunks)[1] - 1)


register(
    Exercise(
        "10.1", "ε̂, the resolution and the verdict at 5,000 runs",
        (Number(lambda: book_ptr_audit(FEW_RUNS).epsilon_lower), Number(lambda: resolution(FEW_RUNS), decimals=3),
         Choice(("yes", "no"), "no")),
        (Mistake((book_ptr_audit(50_000).epsilon_lower, resolution(50_000), "no"),
                 "those are the numbers for 50,000 runs per dataset, the table's; ask for 5,000"),
         Mistake((book_ptr_audit(FEW_RUNS).epsilon_lower, resolution(50_000), "no"),
                 "that resolution is for 50,000 runs per dataset: pass n_samples=5_000"),
         Mistake((book_ptr_audit(FEW_RUNS).epsilon_lower, resolution(FEW_RUNS, delta=0.0), "no"),
                 "that resolution leaves δ at its default 0; the claim has δ = 0.01: pass it to detection_threshold"),
         Mistake((book_ptr_audit(FEW_RUNS).epsilon_lower, book_ptr_at_claimed_epsilon().theory()[0], "no"),
                 "that is theory's violation itself; the resolution is the third value detection_threshold "
                 "returns, the smallest violation the audit can see there"),
         Mistake((book_ptr_audit(FEW_RUNS).epsilon_lower, resolution(FEW_RUNS, 0.05), "no"),
                 "that is the resolution at p = 0.05, the sum pair's event; take theory's p on this pair"),
         Mistake((2 * book_ptr_at_claimed_epsilon().epsilon, resolution(FEW_RUNS), "no"),
                 "2ε is what the book's PTR spends; ε̂ is only what the runs can show, a lower bound"),
         Mistake((book_ptr_audit(FEW_RUNS).violation, resolution(FEW_RUNS), "no"),
                 "that is the violation bound; ε̂ is the result's epsilon_lower"),
         Mistake((book_ptr_audit_without_delta(FEW_RUNS).epsilon_lower, resolution(FEW_RUNS), "no"),
                 "that audit tests δ = 0, but the claim has δ = 0.01: audit with the case's δ (run() passes it)"),
         Mistake((book_ptr_audit(FEW_RUNS).epsilon_lower, resolution(FEW_RUNS), "yes"),
                 "the numbers are right, but the audit passes at 5,000 runs: theory's violation is below the "
                 "resolution, so it stays unseen")),
    ),
    Exercise(
        "10.2", "enough chunks",
        (Number(lambda: chunks_audit(6)), Number(lambda: chunks_audit(8)),
         Number(lambda: book_loss(8))),
        (Mistake(chunks_answer(1.0),
                 "with K = 8 not every chunk of the slicing exists: count the chunks that form, not K"),
         Mistake(chunks_answer(1 / book_loss(8)),
                 "the noise is scaled for K chunks, while one record moves the mean of the c chunks formed by "
                 "(u − l)/c: the loss is the ratio the other way round"),
         Mistake(chunks_answer(chunks_audit(8)),
                 "ε̂ is a lower bound read from the runs; the loss itself follows from the noise scale and the "
                 "chunks formed"),
         Mistake((chunks_audit(6), chunks_audit(8, "chunks"), 1.0),
                 "that audits noise for the chunks formed (noise_for=\"chunks\", the corrected variant); the "
                 "book's variant scales its noise for K (noise_for=\"K\")"),
         Mistake((chunks_audit(6), chunks_audit(10), book_loss(10)),
                 "those are the numbers for K = 10, the figure's; the exercise asks about K = 8")),
    ),
    Exercise(
        "10.3", "sorted_loss from scratch",
        (Function(sorted_cases, sorted_loss_truth, show=show_sorted_case),),
        (Mistake(mistake_one_record_chunks,
                 "right whenever chunks hold two records or more; with one record per chunk, sorting only reorders "
                 "the answers, and their mean does not depend on the order"),
         Mistake(mistake_unsorted,
                 "1 is the loss when the data keep their order and a replaced record changes one chunk; sorted "
                 "first, one replacement can shift a record into every chunk"),
         Mistake(mistake_k, "K chunks do not always form: count the slices of ⌈n/K⌉ records that n records fill"),
         Mistake(mistake_chunk_size, "that is the size of each chunk; the loss counts the chunks"),
         Mistake(mistake_floor, "the last chunk may be shorter than the others, but it is a chunk: it has an "
                                "answer that can move too"),
         Mistake(mistake_one_chunk_kept,
                 "that is what our pair reached, with its last chunk the same on both sides; a worse pair changes "
                 "every chunk")),
    ),
    Exercise(
        "10.4", "reading a pass",
        (Choice(("a", "b", "c", "d"), "b"),),
        (Mistake("a", "the same audit (same N, same seed) catches the book's PTR on this pair: it can see"),
         Mistake("c", "corrected PTR spends 2ε; ε̂ = 0 says what this pair reveals, not what the mechanism spends"),
         Mistake("d", "on the 4 | 5 pair corrected PTR fails when audited against its release's ε alone: the "
                      "test's ε is really spent, not loose accounting")),
    ),
)
