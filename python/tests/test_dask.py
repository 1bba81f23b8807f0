"""The Dask recipe of docs/python.md on a LocalCluster of two worker processes: a bag of a few thousand
positions mapped through dead_many per partition, written to Parquet, read back and compared with the
single-process run (node limit only, no time limit, so the verdicts do not depend on the machine's load)."""

import random

import perftlab
from conftest import need

LIMITS = dict(nodes=20_000, time_limit=0)


def positions(n, seed=7):
    """n positions from seeded random games (python-chess), 10 to 120 plies in."""
    chess = need("chess")
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        board = chess.Board()
        for _ in range(rng.randrange(10, 120)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        out.append(board.fen())
    return out


def verdicts(fens):
    """The recipe's per-partition function: one dict row per position."""
    import perftlab

    return [v.to_dict() for v in perftlab.dead_many(fens, threads=1, **LIMITS)]


def test_dask_local_cluster_equals_one_process(tmp_path):
    need("chess")
    need("dask")
    import dask.bag as bag
    distributed = need("distributed")
    need("pyarrow")
    import pandas as pd

    fens = positions(3000)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            assert len(client.scheduler_info()["workers"]) == 2
            b = bag.from_sequence(fens, npartitions=8).map_partitions(verdicts)
            meta = {"fen": str, "side": str, "result": str, "helpmate": str, "game": str, "reason": str, "nodes": "Int64"}
            b.to_dataframe(meta=meta).to_parquet(str(tmp_path / "verdicts"), write_index=False)
    table = pd.read_parquet(tmp_path / "verdicts")
    # Parquet keeps no row order across files: compare the rows as sorted lists of plain values.
    cols = ["fen", "side", "result", "helpmate", "reason", "nodes"]

    def rows(frame):
        return sorted(
            tuple(None if pd.isna(x) else (int(x) if c == "nodes" else str(x)) for c, x in zip(cols, r))
            for r in frame[cols].itertuples(index=False)
        )

    got, want = rows(table), rows(pd.DataFrame(verdicts(fens)))
    assert len(got) == 3000 and got == want
    assert {r[2] for r in got} <= {"winnable", "unwinnable", "undetermined"}
