"""The covariate design matrix: numeric and dummy-coded covariates, reference levels, dropped
rows, design rows at chosen values, and one line naming the column for each bad covariate."""

import warnings

import numpy as np
import pandas as pd
import pytest

from hiddenbn.data import read_table
from hiddenbn.errors import DataError
from hiddenbn.regression.covariates import covariate_design

FRAME = pd.DataFrame({
    "item": [1, 2, 1, 2, 1, 2, 2, 1],
    "age": [30, 41, None, 52, 23, 35, 60, 44],
    "sex": ["F", "M", "M", "F", "M", "F", "M", "F"],
    "group": [1, 3, 2, 3, 1, 2, 2, 1],
})


def test_numeric_and_categorical_covariates_make_the_matrix():
    design = covariate_design(FRAME, "age,sex,group", categorical=["group"], items=["item"])
    assert design.names == ("(intercept)", "age", "sex=M", "group=2", "group=3")
    assert design.covariates == ("age", "sex", "group")
    assert design.references == {"sex": "F", "group": "1"}
    assert design.levels == {"sex": ("F", "M"), "group": ("1", "2", "3")}
    assert design.kept.tolist() == [True, True, False, True, True, True, True, True]
    assert design.dropped == 1 and design.notes[0].startswith("1 of 8 rows")
    # statsmodels' formula interface builds the same matrix (treatment coding; patsy puts
    # the categorical terms first)
    from statsmodels.formula.api import mnlogit
    expected = mnlogit("item ~ age + sex + C(group)", FRAME.dropna())
    assert expected.exog_names == ["Intercept", "sex[T.M]", "C(group)[T.2]", "C(group)[T.3]",
                                   "age"]
    np.testing.assert_array_equal(design.matrix, expected.exog[:, [0, 4, 1, 2, 3]])
    assert design.matrix.dtype == np.float64


def test_design_rows_at_chosen_values():
    design = covariate_design(FRAME, ["age", "sex"])
    rows = design.rows([{"age": 30, "sex": "M"}, {"age": "41.5", "sex": "F"}])
    assert rows.tolist() == [[1.0, 30.0, 1.0], [1.0, 41.5, 0.0]]
    for values, message in [({"age": 30, "sex": "X"}, "covariate 'sex' has no level 'X'"),
                            ({"age": 30, "sex": "M", "height": 2}, "'height' is not a covar"),
                            ({"age": 30}, "no value of covariate 'sex'"),
                            ({"age": "old", "sex": "M"}, "'old' is not a number")]:
        with pytest.raises(DataError, match=message):
            design.rows(values)


def test_levels_of_a_data_dictionary_set_the_reference(tmp_path):
    path = tmp_path / "data.csv"
    FRAME.to_csv(path, index=False)
    dictionary = tmp_path / "dictionary.yaml"
    dictionary.write_text("sex: [M, F]\nitem: ['1', '2']\n")
    design = covariate_design(read_table(path, dictionary=dictionary), ["sex"])
    assert design.names == ("(intercept)", "sex=F") and design.references == {"sex": "M"}
    # as the levels given in code, and as a pandas categorical column's categories
    assert covariate_design(FRAME, ["sex"], levels={"sex": ["M", "F"]}).references == \
        {"sex": "M"}
    frame = FRAME.assign(sex=pd.Categorical(FRAME.sex, categories=["M", "F"]))
    assert covariate_design(frame, ["sex"]).names == ("(intercept)", "sex=F")


def test_a_level_no_row_has_gets_no_coefficient_and_a_note():
    design = covariate_design(FRAME, ["sex"], levels={"sex": ["X", "F", "M"]})
    assert design.names == ("(intercept)", "sex=M") and design.references == {"sex": "F"}
    assert "no row at level 'X'" in design.notes[0]


def test_missing_values_of_a_file_are_read_as_the_items_are(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("item,age\n1,30\n2,NA\n1,.\n2,41\n1,50\n")
    design = covariate_design(read_table(path), ["age"])
    assert design.dropped == 2 and design.matrix[:, 1].tolist() == [30.0, 41.0, 50.0]


@pytest.mark.parametrize("frame,covariates,options,message", [
    (FRAME, ["height"], {}, "has no column 'height', named as a covariate; its columns are"),
    (FRAME, ["item"], {"items": ["item"]}, "column 'item' is both an item and a covariate"),
    (FRAME.assign(age=[30, "old", 1, 2, 3, 4, 5, 6]), ["age"], {},
     r"row 2, column 'age': 'old' is text where a number is expected .*categorical"),
    (FRAME.assign(sex=["F", "M", "M", "F", "3", "F", "M", "F"]), ["sex"], {},
     r"row 5, column 'sex': '3' is a number among text labels; correct the cell, or name the "
     r"covariate categorical \(categorical=\) to keep '3' as a level"),
    (FRAME.assign(sex=[f"p{row}" for row in range(8)]), ["sex"], {},
     "covariate 'sex' has 8 levels in 8 rows used, .* an identifier, not a covariate; leave it"),
    (FRAME.assign(age=7), ["age"], {}, "covariate 'age' is 7 in every row used, a constant"),
    (FRAME.assign(sex="F"), ["sex"], {}, "covariate 'sex' is 'F' in every row used"),
    (FRAME.assign(age=None), ["age"], {}, "covariate 'age' has only missing cells"),
    (FRAME.assign(older=FRAME.age * 2 + 1), ["age", "older"], {},
     r"columns \(intercept\), age, older are collinear.*leave one of them out"),
    (FRAME.assign(male=(FRAME.sex == "M").astype(int)), ["sex", "male"], {},
     "columns sex=M, male are collinear"),
    (FRAME.head(3), ["age", "sex"], {}, "2 rows have every covariate, not more than the 3"),
    (FRAME.assign(age=None, sex=None), ["sex"], {}, "covariate 'sex' has only missing"),
    (FRAME, ["age", "age"], {}, "covariate 'age' is named twice"),
    (FRAME, [], {}, "no covariate is named"),
    (FRAME, ["age"], {"categorical": ["sex"]}, "'sex' is named categorical but is not a cov"),
    (FRAME, ["sex"], {"levels": {"sex": ["F"]}}, "'sex' has 'M', which is not one of its lev"),
])
def test_each_bad_covariate_gets_one_line_naming_it(frame, covariates, options, message):
    with pytest.raises(DataError, match=message) as error:
        covariate_design(frame, covariates, **options)
    assert "\n" not in str(error.value) and "; " in str(error.value)


def test_a_number_among_labels_names_the_categorical_option_as_its_caller_gives_it():
    with pytest.raises(DataError) as error:
        covariate_design(FRAME.assign(sex=["F", "M", "M", "F", "3", "F", "M", "F"]), ["sex"])
    assert "(categorical=)" in str(error.value)
    assert "(--categorical)" in error.value.command_line_message()


def test_rows_missing_some_covariate_each_can_leave_none():
    frame = pd.DataFrame({"age": [30, None, 40], "sex": [None, "F", None]})
    with pytest.raises(DataError, match="no row has every covariate"):
        covariate_design(frame, ["age", "sex"])


def test_a_number_among_text_labels_is_a_level_of_a_categorical_covariate():
    frame = FRAME.assign(sex=["F", "M", "M", "F", "3", "F", "M", "F"])
    assert covariate_design(frame, ["sex"], categorical=["sex"]).levels == \
        {"sex": ("3", "F", "M")}


def test_messages_name_at_most_five_columns_or_levels():
    rows = 20
    wide = pd.DataFrame({f"column{i}": np.arange(rows) for i in range(40)})
    wide["a"] = [f"a{row % 15}" for row in range(rows)]
    wide["b"] = [f"b{row % 14}" for row in range(rows)]
    with pytest.raises(DataError) as error:
        covariate_design(wide, ["height"])
    assert str(error.value).endswith("its columns are column0, column1, column2, column3, "
                                     "column4, and 37 more")
    with pytest.raises(DataError, match="not more than the 28 coefficients") as error:
        covariate_design(wide, ["a", "b"])
    assert "(intercept), a=a1, a=a10, a=a11, a=a12, and 23 more)" in str(error.value)
    design = covariate_design(wide.head(19), ["a"])
    with pytest.raises(DataError, match="its levels are a0, a1, a10, a11, a12, and 10 more$"):
        design.rows({"a": "z"})


def test_a_far_outlier_is_refused_naming_its_row_without_a_warning():
    frame = FRAME.assign(age=[30, 41, 38, 52, 1e200, 35, 60, 44])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DataError, match=r"row 5, column 'age': 1e\+200 is .* robust "
                                            r"standard deviations") as error:
            covariate_design(frame, "age,sex")
    assert "\n" not in str(error.value)
    # a large value short of the limit is kept
    assert covariate_design(FRAME.assign(age=[30, 41, 38, 52, 1e6, 35, 60, 44]),
                            "age,sex").matrix[4, 1] == 1e6


def test_nearly_collinear_covariates_get_a_note_naming_them():
    rng = np.random.default_rng(0)
    age = rng.normal(45, 12, 200)
    frame = pd.DataFrame({"age": age, "age2": age + rng.normal(0, 1e-3, 200),
                          "sex": rng.choice(["F", "M"], 200)})
    design = covariate_design(frame, "age,age2,sex")
    note, = [note for note in design.notes if "nearly collinear" in note]
    assert note.startswith("the covariate columns age, age2 are nearly collinear")
    # statsmodels' variance inflation factor agrees with the note's
    from statsmodels.stats.outliers_influence import variance_inflation_factor
    stated = float(note.split("factors ")[1].split(",")[0])  # to 3 digits
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels warns of the conditioning it measures
        expected = variance_inflation_factor(design.matrix, 1)
    assert stated == pytest.approx(expected, rel=1e-2)
    assert not any("collinear" in note
                   for note in covariate_design(frame, "age,sex").notes)


def test_a_row_number_read_as_a_covariate_gets_a_note():
    frame = pd.DataFrame({"item": [1, 2] * 6, "id": np.arange(101, 113)[::-1],
                          "age": [30, 41, 35, 52, 23, 35, 60, 44, 31, 38, 47, 29]})
    design = covariate_design(frame, ["id", "age"], items=["item"])
    assert [note for note in design.notes if "'id' holds the whole numbers 101..112" in note]
    # a measurement with a repeated value, one with a gap, and too few rows get none
    for values in ([*range(11), 3], [*range(11), 12], list(range(9))):
        rows = len(values)
        design = covariate_design(pd.DataFrame({"item": [1, 2] * (rows // 2) + [1] * (rows % 2),
                                                "id": values}), ["id"], items=["item"])
        assert not [note for note in design.notes if "row number" in note]
