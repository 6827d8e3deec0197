"""Reading recorded runs back out: the evaluation report (report.py: its tables, in the table model
of table.py, from the rows data.py orders; charts.py; the HTML page, page.py; "What students
asked", usage.py) of one run (run_report.py), the README's results (readme_results.py), proFILL's
label gap (label_gap.py) and many institutions side by side (fleet.py)."""
