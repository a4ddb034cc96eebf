"""EBNC dimension: paper 001's claim that the Sec. 6 construction beats the Sec. 4 one.

Sec. 4 eliminates a matrix with one row per Markov-blanket configuration (2^n for n binary
inputs); Sec. 6 eliminates one small block per input. Both run in this process on the same
networks (the Markov chain given Y and naive Bayes, n binary inputs), after a JIT warm-up; the
report gives the best of three times and the ratio Sec. 4 / Sec. 6.
"""


from benchmarks import best_time
from hiddenbn.ebnc import model as ebnc
from hiddenbn.experiments.heckerman_meek1997 import markov_chain_network, naive_bayes_network


def run():
    ebnc.ebnc_dimension(naive_bayes_network(2), "Y", "exact")  # JIT warm-up / cache load
    ebnc.ebnc_dimension(naive_bayes_network(2), "Y", "decomposition")
    lines = ["network                       d   Sec. 6 (s)  Sec. 4 exact (s)  Sec. 4 / Sec. 6"]
    for name, build in (("Markov chain given Y", markov_chain_network),
                        ("naive Bayes", naive_bayes_network)):
        for n in (8, 10, 12, 14):
            network = build(n)
            d = ebnc.ebnc_dimension(network, "Y", "decomposition").d
            assert ebnc.ebnc_dimension(network, "Y", "exact").d == d
            sec6 = best_time(lambda: ebnc.ebnc_dimension(network, "Y", "decomposition"))
            sec4 = best_time(lambda: ebnc.ebnc_dimension(network, "Y", "exact"))
            lines.append(f"{name + f', n = {n}':28s}{d:3d}   {sec6:10.4f}  {sec4:16.4f}"
                         f"  {sec4 / sec6:15.1f}x")
    return lines
