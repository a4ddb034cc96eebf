"""Default settings and choices that the command line's help shows, as plain constants.

``hiddenbn --help``, ``--version`` and an argument error build the whole argument parser, whose
help texts show these values; they live here, with no import at all, so that building the
parser loads neither numpy nor numba, scipy or pandas (``benchmarks/bench_startup.py``). The
modules that use them (:mod:`hiddenbn.learning.em`, :mod:`hiddenbn.learning.annealing`,
:mod:`hiddenbn.data`, :mod:`hiddenbn.ebnc.fitting`, :mod:`hiddenbn.scores.wbic`) import them
from here under their own names (``tests/test_startup.py`` checks that they still do).
"""

#: The symmetric Dirichlet prior of every CPT row of ``hiddenbn fit``, ``select`` and
#: ``evidence`` (``--prior-alpha``) and of the library's fits (``em.PRIOR_ALPHA``): 1, where the
#: MAP fit is the ML fit that poLCA and StepMix give. Chickering & Heckerman (1996) use 1.01;
#: their protocol names it.
PRIOR_ALPHA = 1.0
#: Stopping rules of EM's final phase (``em.CONVERGENCE``).
CONVERGENCE = ("relative", "absolute")
#: Restart schedules of any EM engine (``em.ENGINE_SCHEDULES``).
ENGINE_SCHEDULES = ("halving", "best-of-n")
#: Restart schedules of EM on a network (``em.SCHEDULES``).
SCHEDULES = ENGINE_SCHEDULES + ("annealing",)
#: The restart schedule of ``hiddenbn fit`` and ``select``, of a study that names none and of
#: ``em.fit``: annealed starts, each run to convergence, then split-and-merge moves. On the suite
#: of docs/SEARCH.md it ended at the best known mode on 11 of 15 data sets and 65-620 nats above
#: paper 003's halving at c = 8-32. The papers' protocols name theirs.
SCHEDULE = "annealing"
#: EM starts of each schedule when none are given: 8 annealed starts (docs/SEARCH.md), paper
#: 003's 64 random ones.
RESTARTS = {"annealing": 8, "halving": 64, "best-of-n": 64}
#: Run EM to the optimum, the keywords of ``em.OPTIMUM = em.Stopping(**OPTIMUM)``: absolute
#: change of g 1e-10 (poLCA's ``tol``), at most 10000 iterations.
OPTIMUM = {"tolerance": 1e-10, "max_iterations": 10000, "convergence": "absolute",
           "run_all_iterations": False}
#: Accelerations of EM's final phase (``em.ACCELERATIONS``): SQUAREM cycles (Varadhan & Roland
#: 2008) or plain EM steps.
ACCELERATIONS = ("squarem", "none")
#: The acceleration of ``hiddenbn fit`` and ``select`` and of the library's fits
#: (``em.ACCELERATION``); the papers' protocols are plain EM and pass ``"none"``.
ACCELERATION = "squarem"
#: Annealing sweeps over the cases per start (``annealing.SWEEPS``).
ANNEALING_SWEEPS = 200
#: Draws per chain of WBIC's sampler after its warm-up (``--wbic-draws``, ``wbic.DRAWS``).
WBIC_DRAWS = 1000
#: Cells read as missing unless told otherwise (``data.DEFAULT_MISSING_VALUES``): pandas' default
#: ``na_values`` (``read_csv``; they cover R's ``NA`` and the NaN of StepMix), then SAS's and
#: Stata's ``.`` and ``na``.
DEFAULT_MISSING_VALUES = ("", "NA", "N/A", "n/a", "NaN", "nan", "-NaN", "-nan", "NULL", "null",
                          "None", "<NA>", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN",
                          "1.#IND", "1.#QNAN", ".", "na")
#: What a data file's missing cells become (``data.MISSING_HANDLING``).
MISSING_HANDLING = ("model", "drop")
#: Scores an embedded classifier is selected by (``ebnc.fitting.SCORES``).
EBNC_SCORES = ("laplace", "bic_log_evidence")
#: Standard deviation of the normal prior on every EBNC parameter
#: (``ebnc.fitting.DEFAULT_PRIOR_SD``).
EBNC_PRIOR_SD = 2.0
#: The corrections of three-step latent class regression (``--three-step``,
#: ``regression.three_step.CORRECTIONS``): BCH's weights or ML's likelihood of the assigned
#: classes (Vermunt 2010; Bakk, Tekle & Vermunt 2013).
THREE_STEP_CORRECTIONS = ("bch", "ml")
#: The path that names standard input where a file is read and standard output where one is
#: written, as for most Unix tools (``textfiles.STANDARD_STREAM``, ``files.STANDARD_STREAM``).
STANDARD_STREAM = "-"
