# Geiger, Heckerman & Meek (1996), paper 000: effective dimensions as Jacobian ranks (naive
# Bayes, the W structure, AutoClass, Gaussian and sigmoid networks), tables beside the printed
# numbers, the networks drawn and Figure 1 from SymPy. One job: every model is small.
GEIGER_HECKERMAN_MEEK1996_DIR = results_folder("geiger_heckerman_meek1996")

FINAL_OUTPUTS.append(f"{GEIGER_HECKERMAN_MEEK1996_DIR}/comparison.md")
reproduce(
    "geiger_heckerman_meek1996",
    f"{GEIGER_HECKERMAN_MEEK1996_DIR}/comparison.md",
    f"{GEIGER_HECKERMAN_MEEK1996_DIR}/verdicts.csv",
)


rule geiger_heckerman_meek1996_dimension:
    input:
        printed=printed_numbers("geiger_heckerman_meek1996", "dimensions.yaml"),
    output:
        report=f"{GEIGER_HECKERMAN_MEEK1996_DIR}/comparison.md",
        verdicts=f"{GEIGER_HECKERMAN_MEEK1996_DIR}/verdicts.csv",
        tables=report_files(
            "geiger_heckerman_meek1996",
            f"{GEIGER_HECKERMAN_MEEK1996_DIR}/tables",
            {
                "naive_bayes": "Sec. 5, naive Bayes",
                "w_structure": "Sec. 5, W structure",
                "autoclass": "Sec. 6, AutoClass",
                "continuous": "Secs. 7-8, Gaussian and sigmoid networks",
            },
            (".csv", ".md"),
        ),
        figures=report_files(
            "geiger_heckerman_meek1996",
            f"{GEIGER_HECKERMAN_MEEK1996_DIR}/figures",
            {"figure1_jacobian": "Figure 1", "structures": "the networks of Secs. 5-8"},
            (".png", ".pdf"),
        ),
    log:
        f"{LOGS}/geiger_heckerman_meek1996/dimension.log",
    benchmark:
        f"{LOGS}/benchmarks/geiger_heckerman_meek1996_dimension/dimension.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    params:
        paper="geiger_heckerman_meek1996",
        section=config["geiger_heckerman_meek1996"],
        # the seed key of the earlier layout (a "dimension" section), so the points are the same
        seed=job_seed("dimension", "geiger_heckerman_meek1996"),
    script:
        "../scripts/dimension.py"
