import { addDays } from '../calendar.js';
import { xlsxFile, type EvalFile } from '../files.js';
import { Random } from '../random.js';
import { round } from '../stats.js';

/** Two Excel workbooks: a budget with a sheet per year, and staff with employees and departments on two sheets. */

export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const DEPARTMENTS = ['Engineering', 'Finance', 'HR', 'Marketing', 'Operations', 'Sales'] as const;

export interface BudgetLine {
  year: 2022 | 2023;
  department: string;
  month: (typeof MONTHS)[number];
  spend: number;
}

export function budgetData(seed = 2022): BudgetLine[] {
  const rng = new Random(seed);
  const lines: BudgetLine[] = [];
  for (const department of DEPARTMENTS) {
    const base = 20_000 + rng.next() * 60_000;
    const growth = 0.9 + rng.next() * 0.35;
    for (const year of [2022, 2023] as const) {
      MONTHS.forEach((month, m) => {
        const season = 1 + 0.15 * Math.sin(((m + rng.int(0, 2)) / 12) * 2 * Math.PI);
        const level = year === 2023 ? base * growth : base;
        lines.push({ year, department, month, spend: round(level * season * (0.9 + rng.next() * 0.2), 2) });
      });
    }
  }
  return lines;
}

export function budgetXlsx(lines: BudgetLine[]): Promise<EvalFile> {
  const sheet = (year: number) => ({
    name: `FY${year}`,
    table: {
      columns: ['department', 'month', 'spend'],
      rows: lines.filter((l) => l.year === year).map((l) => [l.department, l.month, l.spend]),
    },
  });
  return xlsxFile('budget.xlsx', [sheet(2022), sheet(2023)]);
}

export interface Department {
  id: string;
  name: string;
  city: string;
}

export interface Employee {
  id: number;
  name: string;
  departmentId: string;
  salary: number;
  hired: string;
}

export interface Staff {
  departments: Department[];
  employees: Employee[];
}

const STAFF_DEPARTMENTS: Department[] = [
  { id: 'D1', name: 'Platform', city: 'Berlin' },
  { id: 'D2', name: 'Payments', city: 'Berlin' },
  { id: 'D3', name: 'Support', city: 'Hamburg' },
  { id: 'D4', name: 'Research', city: 'Munich' },
  { id: 'D5', name: 'Design', city: 'Berlin' },
  { id: 'D6', name: 'Legal', city: 'Munich' },
  { id: 'D7', name: 'Data', city: 'Hamburg' },
];
const GIVEN = ['Anna', 'Ben', 'Clara', 'David', 'Emma', 'Felix', 'Hanna', 'Jan', 'Lea', 'Lukas', 'Mia', 'Noah'];
const FAMILY = ['Bauer', 'Becker', 'Hoffmann', 'Koch', 'Meyer', 'Richter', 'Schulz', 'Wagner', 'Weber', 'Wolf'];

export function staffData(seed = 1984): Staff {
  const rng = new Random(seed);
  const names = rng.shuffle(GIVEN.flatMap((g) => FAMILY.map((f) => `${g} ${f}`)));
  const employees = names.slice(0, 90).map((name, i) => {
    const department = rng.weighted(STAFF_DEPARTMENTS, [8, 6, 9, 5, 3, 2, 4]);
    return {
      id: 7001 + i,
      name,
      departmentId: department.id,
      salary: Math.round((42_000 + rng.next() * 58_000) / 100) * 100,
      hired: addDays('2012-01-01', rng.int(0, 4300)),
    };
  });
  return { departments: STAFF_DEPARTMENTS, employees };
}

export function staffXlsx(staff: Staff): Promise<EvalFile> {
  return xlsxFile('staff.xlsx', [
    {
      name: 'Employees',
      table: {
        columns: ['employee_id', 'name', 'department_id', 'salary', 'hired'],
        rows: staff.employees.map((e) => [e.id, e.name, e.departmentId, e.salary, { date: e.hired }]),
      },
    },
    {
      name: 'Departments',
      table: {
        columns: ['department_id', 'department', 'city'],
        rows: staff.departments.map((d) => [d.id, d.name, d.city]),
      },
    },
  ]);
}
