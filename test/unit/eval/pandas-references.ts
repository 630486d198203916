/**
 * A pandas solution of every task, each printing `RESULT=<answer>` in the format its question asks for, for
 * the real sandbox (test/integration/cli/eval.test.ts): pandas and openpyxl reading the generated CSV and
 * XLSX files must reach the answers the TypeScript generators computed, and the scripted model of the CLI
 * test runs these as its code. Each solution stands alone: a task's thread holds only its own files.
 */

const D = '/mnt/data/';
const PD = 'import pandas as pd\nimport numpy as np\n';
const SALES = `${PD}s = pd.read_csv("${D}sales.csv")\ns["revenue"] = s.units * s.unit_price\n`;
const JOINED = `${SALES}c = pd.read_csv("${D}customers.csv")\nj = s.merge(c, on="customer_id")\n`;
const TICKETS = `${PD}t = pd.read_csv("${D}tickets.csv", parse_dates=["opened_at", "closed_at"])\n`;
const SIGNUPS = `${PD}u = pd.read_csv("${D}signups.csv")
def parse(text):
    for form in ("%Y-%m-%d", "%d/%m/%Y", "%B %d, %Y"):
        try:
            return pd.to_datetime(text, format=form)
        except ValueError:
            pass
d = u.signup_date.map(parse)
`;
const INVENTORY = `${PD}i = pd.read_csv("${D}inventory.csv", dtype=str, keep_default_na=False)
i = i.drop_duplicates()
price = pd.to_numeric(i.price.str.replace(r"[$,\\s]", "", regex=True), errors="coerce")
category = i.category.str.strip().str.lower()
`;
const CAMPAIGNS = `${PD}m = pd.read_csv("${D}campaigns.csv")\n`;
const BUDGET = `${PD}b = pd.read_excel("${D}budget.xlsx", sheet_name=None)\n`;
const STAFF = `${PD}e = pd.read_excel("${D}staff.xlsx", sheet_name="Employees")
x = e.merge(pd.read_excel("${D}staff.xlsx", sheet_name="Departments"), on="department_id")
`;
const pairs = (series: string, format = '{v}') =>
  `print("RESULT=" + ", ".join(f"{k}=${format}" for k, v in ${series}.items()))`;
const out = (expression: string) => `print("RESULT=" + str(${expression}))`;
const fixed = (expression: string, decimals: number) => `print("RESULT=%.${decimals}f" % (${expression}))`;

export const PANDAS_REFERENCES: Record<string, string> = {
  'agg-total-revenue': SALES + fixed('s.revenue.sum()', 2),
  'agg-top-region': SALES + out('s.groupby("region").revenue.sum().idxmax()'),
  'agg-units-gadget-north': SALES + out('s[(s["product"] == "Gadget") & (s.region == "North")].units.sum()'),
  'agg-large-orders': SALES + out('(s.revenue >= 500).sum()'),
  'agg-mean-units-south': SALES + fixed('s[s.region == "South"].units.mean()', 2),
  'agg-customers-planner': SALES + out('s[s["product"] == "Planner Pro"].customer_id.nunique()'),
  'agg-top3-products': SALES + out('", ".join(s.groupby("product").revenue.sum().nlargest(3).index)'),
  'agg-west-share': SALES + fixed('100 * s[s.region == "West"].revenue.sum() / s.revenue.sum()', 1),
  'join-corporate-revenue': JOINED + fixed('j[j.segment == "Corporate"].revenue.sum()', 2),
  'join-top-country': JOINED + out('j.groupby("country").revenue.sum().idxmax()'),
  'join-customers-without-orders': JOINED + out('(~c.customer_id.isin(s.customer_id)).sum()'),
  'join-top-customer': JOINED + out('c.set_index("customer_id").name[s.groupby("customer_id").revenue.sum().idxmax()]'),
  'join-hardware-margin':
    `${SALES}p = pd.read_csv("${D}products.csv")\nh = s.merge(p, on="product").query("category == 'Hardware'")\n` +
    fixed('(h.revenue - h.units * h.unit_cost).sum()', 2),
  'join-orders-before-signup': JOINED + out('(pd.to_datetime(j.date) < pd.to_datetime(j.signup_date)).sum()'),
  'dates-busiest-month': SALES + out('pd.to_datetime(s.date).dt.strftime("%Y-%m").value_counts().idxmax()'),
  'dates-top-weekday': SALES + out('s.groupby(pd.to_datetime(s.date).dt.day_name()).revenue.sum().idxmax()'),
  'dates-weekend-share':
    `${SALES}w = pd.to_datetime(s.date).dt.dayofweek >= 5\n` + fixed('100 * s[w].revenue.sum() / s.revenue.sum()', 1),
  'dates-q3-revenue': SALES + fixed('s[pd.to_datetime(s.date).dt.quarter == 3].revenue.sum()', 2),
  'dates-median-resolution': TICKETS + fixed('((t.closed_at - t.opened_at).dt.total_seconds() / 3600).median()', 1),
  'dates-open-at':
    `${TICKETS}at = pd.Timestamp("2023-06-15 12:00")\n` +
    out('((t.opened_at <= at) & (t.closed_at.isna() | (t.closed_at > at))).sum()'),
  'dates-mixed-formats-april': SIGNUPS + out('(d.dt.strftime("%Y-%m") == "2023-04").sum()'),
  'dates-first-business-signup': SIGNUPS + out('d[u.plan == "Business"].min().strftime("%Y-%m-%d")'),
  'clean-exact-duplicates':
    `${PD}i = pd.read_csv("${D}inventory.csv", dtype=str, keep_default_na=False)\n` + out('i.duplicated().sum()'),
  'clean-missing-price': INVENTORY + out('i[price.isna()].sku.nunique()'),
  'clean-kitchen-skus': INVENTORY + out('i[category == "kitchen"].sku.nunique()'),
  'clean-stock-value': INVENTORY + fixed('(price * i.quantity.astype(int)).sum()', 2),
  'clean-tools-mean-price': INVENTORY + fixed('price[category == "tools"].mean()', 2),
  'clean-sentinel-mean':
    `${PD}r = pd.read_csv("${D}readings.csv")\n` +
    fixed('r[(r.sensor == "S2") & (r.temperature_c != -999)].temperature_c.mean()', 2),
  'clean-latest-contact':
    `${PD}k = pd.read_csv("${D}contacts.csv")\nlatest = k.sort_values("updated_at").groupby("contact_id").tail(1)\n` +
    out('(latest.city == "Lyon").sum()'),
  'stats-median-spend': CAMPAIGNS + fixed('m.ad_spend.median()', 2),
  'stats-std-revenue': CAMPAIGNS + fixed('m.revenue.std()', 2),
  'stats-correlation': CAMPAIGNS + fixed('m.ad_spend.corr(m.revenue)', 3),
  'stats-regression-slope': CAMPAIGNS + fixed('np.polyfit(m.ad_spend, m.revenue, 1)[0]', 3),
  'stats-p90-visits': CAMPAIGNS + fixed('m.visits.quantile(0.9)', 1),
  'stats-channel-conversion': CAMPAIGNS + out('(m.conversions / m.visits).groupby(m.channel).median().idxmax()'),
  'stats-revenue-outliers':
    `${CAMPAIGNS}z = (m.revenue - m.revenue.mean()) / m.revenue.std()\n` + out('(z.abs() > 2).sum()'),
  'stats-iqr-conversions': CAMPAIGNS + fixed('m.conversions.quantile(0.75) - m.conversions.quantile(0.25)', 2),
  'excel-total-fy2023': BUDGET + fixed('b["FY2023"].spend.sum()', 2),
  'excel-biggest-increase':
    BUDGET +
    out('(b["FY2023"].groupby("department").spend.sum() - b["FY2022"].groupby("department").spend.sum()).idxmax()'),
  'excel-peak-month-fy2022': BUDGET + out('b["FY2022"].groupby("month").spend.sum().idxmax()'),
  'excel-berlin-salary': STAFF + fixed('x[x.city == "Berlin"].salary.mean()', 2),
  'excel-hired-2021': STAFF + out('(e.hired.dt.year == 2021).sum()'),
  'excel-largest-department': STAFF + out('x.department.value_counts().idxmax()'),
  'excel-first-hire': STAFF + out('e.sort_values("hired").iloc[0]["name"]'),
  'chart-units-by-region':
    `${SALES}totals = s.groupby("region").units.sum()\ntotals.plot.bar(title="Units per region")\n` + pairs('totals'),
  'chart-monthly-orders':
    `${SALES}counts = s.groupby(pd.to_datetime(s.date).dt.month).size()\ncounts.plot(title="Orders per month")\n` +
    out('", ".join(str(v) for v in counts)'),
  'chart-fy2023-departments':
    `${BUDGET}totals = b["FY2023"].groupby("department").spend.sum()\ntotals.plot.barh(title="FY2023 spend")\n` +
    pairs('totals', '{v:.2f}'),
};
