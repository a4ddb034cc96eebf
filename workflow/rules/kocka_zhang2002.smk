# Kočka & Zhang (2002), paper 002 Secs. 5-6: does the dimension correction (BIC+, CS+) help?
# One job per LC generator (its parametrisations, sample sizes and test models), one job per HLC
# sample size (every parametrisation, four hill-climbs), then tables, figures, comparison.md.
rule kz02_lc:
    output:
        f"{KZ02_DIR}/lc/{{generator}}.csv",
    log:
        f"{LOGS}/kocka_zhang2002/lc/{{generator}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        section=KZ02,
        seed=job_seed("kocka_zhang2002", "lc"),
        points=KZ02_POINTS,
    script:
        "../scripts/kz02_lc.py"


rule kz02_hlc:
    output:
        f"{KZ02_DIR}/hlc/n{{cases}}.csv",
    log:
        f"{LOGS}/kocka_zhang2002/hlc/n{{cases}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        section=KZ02,
        seed=job_seed("kocka_zhang2002", "hlc"),
        points=KZ02_POINTS,
    script:
        "../scripts/kz02_hlc.py"


rule kz02_report:
    input:
        lc=kz02_lc_files(),
        hlc=kz02_hlc_files(),
        printed_table2=workflow.source_path("../resources/kocka_zhang2002/paper_table2.csv"),
    output:
        comparison=f"{KZ02_DIR}/comparison.md",
        verdicts=f"{KZ02_DIR}/verdicts.csv",
        table2=in_report(f"{KZ02_DIR}/tables/table2.csv", "paper002_table2", "002", "Table 2"),
        tables=[
            in_report(f"{KZ02_DIR}/tables/{name}.csv", f"paper002_{name}", "002", item)
            for name, item in (
                ("lc_summary", "Figures 4-5, the plotted means"),
                ("lc_selections", "Figures 4-5, every selection"),
                ("hlc_frequent_models", "Sec. 6, most frequent HLC models"),
            )
        ],
        figures=kz02_figure_files(),
    log:
        f"{LOGS}/kocka_zhang2002/report.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=KZ02,
    script:
        "../scripts/kz02_report.py"
