"""Each training corpus's labelled blocks weigh the same in the block model.

The two corpora count equally in what extraction is judged by (the mean of WCXB word F1
and trafilatura-eval snippet F1), but not in the blocks the block model learns from:
WCXB's references label every block of a page, trafilatura-eval's snippets only the few
blocks holding one (9,247 of the 418,055 labelled blocks), and those few are the only
examples of what that corpus calls boilerplate. Scaling each corpus's weights so that its
labelled blocks carry as much total weight as the heaviest corpus's gives both a say.
"""

from __future__ import annotations

from typing import Any

#: One reading's blocks: (features, labels with NaN where the references do not say,
#: weights), as ``bench/train_extraction.py`` builds them.
Examples = tuple[Any, Any, Any]


def balanced(examples: list[Examples], corpora: list[str]) -> list[Examples]:
    """``examples`` (``corpora[i]`` the corpus of ``examples[i]``) with the weights of each
    corpus scaled so that its labelled rows weigh as much in total as the heaviest
    corpus's; the heaviest keeps its weights, a corpus with no labelled rows too."""
    import numpy

    totals: dict[str, float] = {}
    for (_, labels, weights), corpus in zip(examples, corpora, strict=True):
        labelled = ~numpy.isnan(labels)
        totals[corpus] = totals.get(corpus, 0.0) + float(numpy.asarray(weights)[labelled].sum())
    heaviest = max(totals.values(), default=0.0)
    scale = {c: heaviest / t if t > 0 else 1.0 for c, t in totals.items()}
    return [
        (rows, labels, numpy.asarray(weights) * scale[corpus])
        for (rows, labels, weights), corpus in zip(examples, corpora, strict=True)
    ]
