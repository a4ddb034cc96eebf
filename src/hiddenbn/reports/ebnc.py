"""The reports of ``hiddenbn ebnc fit`` and ``hiddenbn ebnc select`` (JSON-ready dicts).

:func:`fit_report` fits the embedded classifier of a target in a given network
(:func:`hiddenbn.ebnc.fitting.score_ebnc`), :func:`select_report` searches the embedded networks
and features (:func:`hiddenbn.ebnc.fitting.select_embedded_network`); both report scores
(Laplace, BIC: larger is better) and the natural parameters ``phi``.
"""

from __future__ import annotations

import numpy as np

from hiddenbn.data import Dataset
from hiddenbn.ebnc.fitting import (DEFAULT_PRIOR_SD, SCORES_ORIENTATION, require_two_classes,
                                   score_ebnc, select_embedded_network)
from hiddenbn.errors import DataError, HiddenbnError, option
from hiddenbn.models.network import Network
from hiddenbn.util import limits


def _phi_table(phi: np.ndarray, features) -> dict:
    """``{feature: [phi for classes 2..r_Y]}``."""
    return {name: [float(v) for v in row] for name, row in zip(features, phi)}


def fit_report(network: Network, target: str, data: Dataset,
               prior_sd: float = DEFAULT_PRIOR_SD) -> dict:
    """The EBNC of ``target`` in ``network`` fitted to ``data``: Laplace, BIC and ``phi``.

    Keys: ``target``, ``inputs`` (the Markov blanket), ``n_cases``, ``scores_orientation``
    (:data:`~hiddenbn.ebnc.fitting.SCORES_ORIENTATION`), ``d``, ``basis_size``, ``laplace``,
    ``bic_log_evidence``, ``log_likelihood_ml``, ``log_likelihood_map``, ``prior_sd``,
    ``ml_converged`` (False when the classes are separated: the ML phi is infinite), ``phi_map`` and
    ``phi_ml`` (feature -> values for classes 2..r_Y).
    """
    if target not in network.names:
        raise HiddenbnError(f"{option('--target', shown=repr(target))} is not a node of the "
                            f"embedded network; its nodes are {', '.join(network.names)}")
    require_two_classes(data, target)
    score = score_ebnc(network, target, data, prior_sd)
    return {
        "target": target, "inputs": list(score.inputs), "n_cases": data.n_cases,
        "scores_orientation": SCORES_ORIENTATION,
        "d": score.d, "basis_size": score.basis_size, "laplace": score.laplace,
        "bic_log_evidence": score.bic_log_evidence,
        "log_likelihood_ml": score.ml_fit.log_likelihood,
        "log_likelihood_map": score.map_fit.log_likelihood, "prior_sd": prior_sd,
        "ml_converged": score.ml_fit.converged,
        "phi_map": _phi_table(score.map_fit.phi, score.features),
        "phi_ml": _phi_table(score.ml_fit.phi, score.features),
    }


def select_report(data: Dataset, target: str, inputs=None, score: str = "laplace",
                  prior_sd: float = DEFAULT_PRIOR_SD, max_parents: int = 3,
                  progress=None) -> dict:
    """Model and feature selection for ``target`` (default inputs: every other column);
    ``progress`` as in :func:`~hiddenbn.ebnc.fitting.select_embedded_network`.

    Keys: ``target``, ``score``, ``scores_orientation``
    (:data:`~hiddenbn.ebnc.fitting.SCORES_ORIENTATION`), ``selected_inputs``, ``embedded_network``
    (node -> parents), ``value`` (the selected model's score), ``laplace``, ``bic_log_evidence``,
    ``d``, ``features``, ``steps`` and ``models_scored``.
    """
    if target not in data.names:
        raise DataError(f"{option('--target', shown=repr(target))} is not a column of the data; "
                        f"columns are {', '.join(data.names)}")
    inputs = [name for name in data.names if name != target] if inputs is None else inputs
    require_two_classes(data, target)
    limits.require_at_most(len(inputs), limits.MAX_EBNC_INPUTS, "the number of inputs the "
                           "greedy search considers", f"choose them with {option('--inputs')}",
                           DataError)
    selection = select_embedded_network(data, target, inputs, score, prior_sd, max_parents,
                                        progress=progress)
    return {
        "target": target, "score": score, "scores_orientation": SCORES_ORIENTATION,
        "selected_inputs": list(selection.inputs),
        "embedded_network": {node: list(parents) for node, parents in selection.parents.items()},
        "value": selection.value, "laplace": selection.score.laplace,
        "bic_log_evidence": selection.score.bic_log_evidence, "d": selection.score.d,
        "features": list(selection.score.features), "steps": selection.steps,
        "models_scored": len(selection.visited),
    }
