#!/usr/bin/python3
"""The baseline of bench/report.sh: the weekly workbook as a pandas + openpyxl
notebook would build it, from the same files finops ingests (bench/reportgen):
a FOCUS export (focus.csv) and nvidia-smi samples every 5 minutes with a
hostname column (smi.csv; the hostname is the billed ResourceId).

    /usr/bin/python3 bench/pandas_report.py DIR OUT.xlsx [--write-only]

Sheets, in finops' order and with finops' columns where the computation is the
same (report/xlsx*.go):

  Summary              KPIs (total, GPU and non-GPU cost, idle cost and share,
                       GPU-hours billed/active/idle, average utilization, monthly
                       savings, findings) and the daily cost by team table.
                       No native charts (finops adds three).
  Findings             one row per resource with idle cost (finops also has
                       rent-mode and other findings).
  By team              cost, GPU cost, idle cost, idle share, month to date and a
                       linear month-end forecast; no budgets or previous period.
  By resource          cost, GPU-hours billed/active/idle, idle cost, average
                       utilization and the utilization bands in GPU-hours.
  Idle waste           idle spans: a GPU under 10 % for 30 minutes or more
                       (consecutive 5-minute samples), with their cost.
  Recommendations      SIMPLIFIED: "Stop when idle" for a resource idle more
                       than 20 % of its billed GPU-hours, saving its idle share
                       of the monthly cost; finops also compares monthly, spot
                       and release against a price catalog.
  Utilization (hourly) resource, GPU, hour, mean utilization, band:
                       1,000 GPUs x 168 hours = 168,000 rows.
  Billing lines        every line of the week: 29 FOCUS columns plus team, share
                       of the line in the period and cost in the period
                       (32 columns, as finops writes).

By default the workbook is written the way a notebook does it: DataFrame.to_excel
into pd.ExcelWriter(engine="openpyxl") (openpyxl's normal mode, every cell an
object in memory until the save), with frozen header rows and autofilters.
--write-only writes the same rows through openpyxl's write_only mode
(Workbook(write_only=True), rows appended and streamed to a temporary file),
what someone would switch to once the normal mode runs out of memory.
"""

import json
import sys

import numpy as np
import pandas as pd

IDLE_PCT = 10.0
IDLE_MIN_SAMPLES = 6  # 6 x 5 minutes = 30 minutes
STEP = pd.Timedelta(minutes=5)
GPU_TYPES = {"g5.12xlarge": ("A10G", 4)}

BILLING_COLUMNS = [
    "ProviderName", "BillingAccountId", "SubAccountId", "ChargePeriodStart", "ChargePeriodEnd", "ChargeCategory",
    "ChargeClass", "ChargeFrequency", "PricingCategory", "CommitmentDiscountStatus", "CommitmentDiscountId",
    "ResourceId", "ResourceName", "ResourceType", "ServiceName", "SkuId", "InstanceType", "RegionId", "GPUModel",
    "GPUs", "BilledCost", "EffectiveCost", "ListCost", "BillingCurrency", "ConsumedQuantity", "ConsumedUnit",
    "ShareInPeriod", "CostInPeriod", "Team", "Tags", "AvailabilityZone", "Id",
]


def band(u):
    return pd.cut(u, [-1, 10, 50, 80, 95, 101], right=False,
                  labels=["idle", "low", "fair", "target", "saturated"]).astype(str)


def main():
    src, out = sys.argv[1], sys.argv[2]
    write_only = "--write-only" in sys.argv[3:]

    # --- billing ---
    bill = pd.read_csv(f"{src}/focus.csv", na_values=["NULL"], keep_default_na=False,
                       dtype={"BillingAccountId": str, "SubAccountId": str, "AvailabilityZone": str})
    for c in ("ChargePeriodStart", "ChargePeriodEnd"):
        bill[c] = pd.to_datetime(bill[c], format="%Y-%m-%d %H:%M:%S")
    week_start = bill["ChargePeriodStart"].min().normalize()
    week_start -= pd.Timedelta(days=week_start.weekday())
    week_end = week_start + pd.Timedelta(days=7)
    tags = bill["Tags"].map(lambda s: json.loads(s) if isinstance(s, str) else {})
    bill["Team"] = tags.map(lambda t: t.get("team", "(untagged)"))
    bill["InstanceType"] = bill["ChargeDescription"].str.extract(r"Linux ([a-z0-9]+\.[a-z0-9]+) Instance")[0]
    bill["GPUModel"] = bill["InstanceType"].map(lambda t: GPU_TYPES.get(t, (None, 0))[0])
    bill["GPUs"] = bill["InstanceType"].map(lambda t: GPU_TYPES.get(t, (None, 0))[1])
    span = (bill["ChargePeriodEnd"] - bill["ChargePeriodStart"]).dt.total_seconds()
    inside = (bill["ChargePeriodEnd"].clip(upper=week_end) - bill["ChargePeriodStart"].clip(lower=week_start))
    bill["ShareInPeriod"] = (inside.dt.total_seconds() / span).clip(0, 1)
    bill["CostInPeriod"] = bill["EffectiveCost"] * bill["ShareInPeriod"]
    gpu = bill[bill["GPUs"] > 0]
    res = gpu.groupby("ResourceId").agg(
        Team=("Team", "first"), Provider=("ProviderName", "first"), GPUModel=("GPUModel", "first"),
        GPUs=("GPUs", "max"), Cost=("CostInPeriod", "sum"),
        BilledHours=("ConsumedQuantity", "sum"))
    res["GPUHoursBilled"] = res["BilledHours"] * res["GPUs"]
    res["CostPerGPUHour"] = res["Cost"] / res["GPUHoursBilled"]

    # --- telemetry ---
    smi = pd.read_csv(f"{src}/smi.csv", skipinitialspace=True)
    smi.columns = [c.split(" [")[0] for c in smi.columns]
    smi["timestamp"] = pd.to_datetime(smi["timestamp"], format="%Y/%m/%d %H:%M:%S.%f")
    smi["util"] = smi["utilization.gpu"].str.rstrip(" %").astype(float)
    smi = smi.rename(columns={"hostname": "ResourceId", "uuid": "GPU"})
    smi = smi.sort_values(["GPU", "timestamp"], kind="stable")
    smi["hour"] = smi["timestamp"].dt.floor("h")
    hourly = smi.groupby(["ResourceId", "GPU", "hour"], sort=True)["util"].mean().reset_index()
    hourly["Band"] = band(hourly["util"])
    hourly["Utilization"] = hourly["util"] / 100

    # Idle spans: runs of consecutive idle samples of one GPU, 30 minutes or more.
    idle = smi["util"] < IDLE_PCT
    run = (idle != idle.shift()) | (smi["GPU"] != smi["GPU"].shift())
    smi["run"] = run.cumsum()
    runs = smi[idle].groupby("run").agg(ResourceId=("ResourceId", "first"), GPU=("GPU", "first"),
                                        Start=("timestamp", "first"), Last=("timestamp", "last"),
                                        Samples=("util", "size"))
    runs = runs[runs["Samples"] >= IDLE_MIN_SAMPLES].copy()
    runs["Start"] = runs["Start"].dt.floor("min")
    runs["End"] = (runs["Last"] + STEP).dt.floor("min").clip(upper=week_end)
    runs["Hours"] = (runs["End"] - runs["Start"]).dt.total_seconds() / 3600
    runs = runs.join(res[["CostPerGPUHour"]], on="ResourceId")
    runs["Cost"] = runs["Hours"] * runs["CostPerGPUHour"]
    idle_spans = runs[["ResourceId", "GPU", "Start", "End", "Hours", "Cost"]].reset_index(drop=True)

    # --- per resource, per team ---
    per_gpu_hours = hourly.groupby(["ResourceId", "Band"]).size().unstack(fill_value=0)
    res["GPUHoursIdle"] = idle_spans.groupby("ResourceId")["Hours"].sum()
    res["GPUHoursIdle"] = res["GPUHoursIdle"].fillna(0)
    res["GPUHoursActive"] = res["GPUHoursBilled"] - res["GPUHoursIdle"]
    res["IdleCost"] = idle_spans.groupby("ResourceId")["Cost"].sum()
    res["IdleCost"] = res["IdleCost"].fillna(0)
    res["AvgUtilization"] = smi.groupby("ResourceId")["util"].mean() / 100
    for b in ["idle", "low", "fair", "target", "saturated"]:
        res["GPU-h " + b] = per_gpu_hours.get(b, pd.Series(dtype=float)).reindex(res.index).fillna(0)
    by_resource = res.reset_index()[["ResourceId", "Provider", "GPUModel", "GPUs", "Team", "Cost", "GPUHoursBilled",
                                     "GPUHoursActive", "GPUHoursIdle", "IdleCost", "AvgUtilization",
                                     "GPU-h idle", "GPU-h low", "GPU-h fair", "GPU-h target", "GPU-h saturated"]]

    days_in_month = pd.Period(week_start, "M").days_in_month
    by_team = bill.groupby("Team").agg(Cost=("CostInPeriod", "sum"))
    by_team["GPU cost"] = gpu.groupby("Team")["CostInPeriod"].sum()
    by_team["Idle cost"] = res.groupby("Team")["IdleCost"].sum()
    by_team = by_team.fillna(0)
    by_team["Idle share of cost"] = by_team["Idle cost"] / by_team["Cost"]
    month_start = week_start.replace(day=1)
    mtd = bill[bill["ChargePeriodStart"] >= month_start].groupby("Team")["CostInPeriod"].sum()
    by_team["Month to date"] = mtd
    elapsed_days = (week_end - month_start).days
    by_team["Month-end forecast"] = by_team["Month to date"] / elapsed_days * days_in_month
    by_team = by_team.sort_values("Cost", ascending=False).reset_index()

    # Recommendations (simplified, see the docstring).
    rec = res[res["GPUHoursIdle"] > 0.2 * res["GPUHoursBilled"]].copy()
    monthly = rec["Cost"] / 7 * 30
    rec["Current monthly cost"] = monthly
    rec["Monthly savings"] = monthly * rec["GPUHoursIdle"] / rec["GPUHoursBilled"]
    rec["Recommended monthly cost"] = monthly - rec["Monthly savings"]
    rec["Active hours/month per GPU"] = rec["GPUHoursActive"] / rec["GPUs"] / 168 * 720
    rec["Action"] = "Stop when idle"
    rec["Reason"] = ("busy " + rec["Active hours/month per GPU"].round().astype(int).astype(str)
                     + " h/month per GPU but billed 720 h/month")
    recs = rec.reset_index()[["ResourceId", "GPUModel", "GPUs", "Action", "Current monthly cost",
                              "Recommended monthly cost", "Monthly savings", "Active hours/month per GPU", "Reason"]]
    recs = recs.sort_values("Monthly savings", ascending=False)

    findings = res[res["IdleCost"] > 0].reset_index()
    findings = pd.DataFrame({"Finding": "Idle GPUs", "Team": findings["Team"], "Resource ID": findings["ResourceId"],
                             "Money at stake": findings["IdleCost"],
                             "What to do": findings["ResourceId"] + " sat idle while billed"}
                            ).sort_values("Money at stake", ascending=False)

    daily = bill.assign(Day=bill["ChargePeriodStart"].dt.strftime("%Y-%m-%d")).pivot_table(
        index="Day", columns="Team", values="CostInPeriod", aggfunc="sum", fill_value=0).reset_index()
    total, gpu_cost = bill["CostInPeriod"].sum(), gpu["CostInPeriod"].sum()
    kpis = pd.DataFrame([
        ("Period", week_start.strftime("%G-W%V")), ("From", week_start), ("To (exclusive)", week_end),
        ("Total cost", total), ("GPU cost", gpu_cost), ("Non-GPU cost", total - gpu_cost),
        ("Idle cost", res["IdleCost"].sum()), ("Idle share of total cost", res["IdleCost"].sum() / total),
        ("GPU-hours billed", res["GPUHoursBilled"].sum()), ("GPU-hours active", res["GPUHoursActive"].sum()),
        ("GPU-hours idle", res["GPUHoursIdle"].sum()), ("Average GPU utilization", smi["util"].mean() / 100),
        ("Monthly savings available", recs["Monthly savings"].sum()), ("Findings", len(findings)),
    ], columns=["Metric", "Value"])

    util_sheet = hourly.rename(columns={"ResourceId": "Resource ID", "hour": "Hour (UTC)"})[
        ["Resource ID", "GPU", "Hour (UTC)", "Utilization", "Band"]]
    lines = bill[BILLING_COLUMNS]

    sheets = [("Summary", kpis), ("Findings", findings), ("By team", by_team), ("By resource", by_resource),
              ("Idle waste", idle_spans), ("Recommendations", recs), ("Utilization (hourly)", util_sheet),
              ("Billing lines", lines)]
    if write_only:
        write_streamed(out, sheets, daily)
    else:
        write_notebook(out, sheets, daily)


def write_notebook(out, sheets, daily):
    with pd.ExcelWriter(out, engine="openpyxl") as xw:
        for name, df in sheets:
            df.to_excel(xw, sheet_name=name, index=False)
            ws = xw.sheets[name]
            ws.freeze_panes = "A2"
            ws.auto_filter.ref = ws.dimensions
        daily.to_excel(xw, sheet_name="Summary", index=False, startcol=3)


def write_streamed(out, sheets, daily):
    from openpyxl import Workbook
    wb = Workbook(write_only=True)
    for name, df in sheets:
        ws = wb.create_sheet(name)
        ws.freeze_panes = "A2"
        if name == "Summary":
            df = pd.concat([df, pd.DataFrame({"": [None] * len(daily)})], axis=1)
            df = pd.concat([df, daily], axis=1)
        ws.append(list(df.columns))
        for row in df.itertuples(index=False, name=None):
            ws.append([None if (isinstance(v, float) and np.isnan(v)) or v is pd.NaT else
                       (v.to_pydatetime() if isinstance(v, pd.Timestamp) else v) for v in row])
    wb.save(out)


if __name__ == "__main__":
    main()
