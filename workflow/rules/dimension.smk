# Effective dimensions of papers 000, 002 and 004 (tables beside the printed numbers, the
# networks drawn, paper 000's Figure 1 from SymPy), from hiddenbn.experiments.dimension. One
# job per paper: every model is small, and the whole set takes well under a minute.
rule dimension_geiger_heckerman_meek1996:
    output:
        report=f"{DIM_DIR}/geiger_heckerman_meek1996/comparison.md",
        verdicts=f"{DIM_DIR}/geiger_heckerman_meek1996/verdicts.csv",
        tables=dimension_tables(
            "geiger_heckerman_meek1996",
            {
                "naive_bayes": "Sec. 5, naive Bayes",
                "w_structure": "Sec. 5, W structure",
                "autoclass": "Sec. 6, AutoClass",
                "continuous": "Secs. 7-8, Gaussian and sigmoid networks",
            },
        ),
        figures=dimension_figures(
            "geiger_heckerman_meek1996",
            {"figure1_jacobian": "Figure 1", "structures": "the networks of Secs. 5-8"},
        ),
    log:
        f"{LOGS}/dimension/geiger_heckerman_meek1996.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        paper="geiger_heckerman_meek1996",
        section=DIM,
        seed=job_seed("dimension", "geiger_heckerman_meek1996"),
    script:
        "../scripts/dimension_paper.py"


rule dimension_kocka_zhang2002:
    output:
        report=f"{DIM_DIR}/kocka_zhang2002/comparison.md",
        verdicts=f"{DIM_DIR}/kocka_zhang2002/verdicts.csv",
        tables=dimension_tables(
            "kocka_zhang2002",
            {"table1": "Table 1", "hlc_decomposition": "Sec. 4, HLC decomposition"},
        ),
        figures=dimension_figures("kocka_zhang2002", {"structures": "Figures 1-3"}),
    log:
        f"{LOGS}/dimension/kocka_zhang2002.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        paper="kocka_zhang2002",
        section=DIM,
        seed=job_seed("dimension", "kocka_zhang2002"),
    script:
        "../scripts/dimension_paper.py"


rule dimension_meek_heckerman1997:
    output:
        report=f"{DIM_DIR}/meek_heckerman1997/comparison.md",
        verdicts=f"{DIM_DIR}/meek_heckerman1997/verdicts.csv",
        tables=dimension_tables(
            "meek_heckerman1997",
            {
                "table1": "Table 1",
                "nine_parameter_structures": "every 9-parameter structure",
            },
        ),
        figures=dimension_figures("meek_heckerman1997", {"structures": "Figure 4"}),
    log:
        f"{LOGS}/dimension/meek_heckerman1997.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        paper="meek_heckerman1997",
        section=DIM,
        seed=job_seed("dimension", "meek_heckerman1997"),
    script:
        "../scripts/dimension_paper.py"
