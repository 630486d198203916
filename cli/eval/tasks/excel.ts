import { budgetData, budgetXlsx, staffData, staffXlsx } from '../data/workbooks.js';
import { argmaxUnique, mean, sum, totalsBy } from '../stats.js';
import { answerOf, defineTask, type EvalTask } from '../task.js';

const BUDGET_INTRO =
  'budget.xlsx has a sheet per fiscal year (FY2022, FY2023) with the monthly spend of each department.';
const STAFF_INTRO =
  'staff.xlsx has two sheets: Employees (with department_id, salary and hire date) and Departments (with the city).';

/** Workbooks: several sheets, sheets to join, date cells. */
export const excelTasks: EvalTask[] = [
  defineTask('excel-total-fy2023', 'excel', async () => {
    const lines = budgetData();
    return {
      files: [await budgetXlsx(lines)],
      question: `${BUDGET_INTRO} What is the total spend on the FY2023 sheet?`,
      expected: answerOf.number(sum(lines.filter((l) => l.year === 2023).map((l) => l.spend)), 2),
    };
  }),
  defineTask('excel-biggest-increase', 'excel', async () => {
    const lines = budgetData();
    const change = totalsBy(
      lines,
      (l) => l.department,
      (l) => (l.year === 2023 ? l.spend : -l.spend),
    );
    return {
      files: [await budgetXlsx(lines)],
      question: `${BUDGET_INTRO} Which department's yearly spend grew the most (in absolute terms) from FY2022 to FY2023?`,
      expected: answerOf.text(argmaxUnique(change)),
    };
  }),
  defineTask('excel-peak-month-fy2022', 'excel', async () => {
    const lines = budgetData().filter((l) => l.year === 2022);
    return {
      files: [await budgetXlsx(budgetData())],
      question: `${BUDGET_INTRO} In FY2022, which month had the highest total spend over all departments? Answer with the month as the sheet writes it.`,
      expected: answerOf.text(
        argmaxUnique(
          totalsBy(
            lines,
            (l) => l.month,
            (l) => l.spend,
          ),
        ),
      ),
    };
  }),
  defineTask('excel-berlin-salary', 'excel', async () => {
    const staff = staffData();
    const berlin = new Set(staff.departments.filter((d) => d.city === 'Berlin').map((d) => d.id));
    const salaries = staff.employees.filter((e) => berlin.has(e.departmentId)).map((e) => e.salary);
    return {
      files: [await staffXlsx(staff)],
      question: `${STAFF_INTRO} What is the average salary of the employees whose department is in Berlin?`,
      expected: answerOf.number(mean(salaries), 2),
    };
  }),
  defineTask('excel-hired-2021', 'excel', async () => {
    const staff = staffData();
    return {
      files: [await staffXlsx(staff)],
      question: `${STAFF_INTRO} How many employees were hired in 2021?`,
      expected: answerOf.number(staff.employees.filter((e) => e.hired.startsWith('2021-')).length, 0),
    };
  }),
  defineTask('excel-largest-department', 'excel', async () => {
    const staff = staffData();
    const name = new Map(staff.departments.map((d) => [d.id, d.name]));
    return {
      files: [await staffXlsx(staff)],
      question: `${STAFF_INTRO} Which department (by its name) has the most employees?`,
      expected: answerOf.text(
        argmaxUnique(
          totalsBy(
            staff.employees,
            (e) => name.get(e.departmentId)!,
            () => 1,
          ),
        ),
      ),
    };
  }),
  defineTask('excel-first-hire', 'excel', async () => {
    const staff = staffData();
    const byDate = [...staff.employees].sort((a, b) => a.hired.localeCompare(b.hired));
    if (byDate[0]!.hired === byDate[1]!.hired) throw new Error('two employees share the first hire date');
    return {
      files: [await staffXlsx(staff)],
      question: `${STAFF_INTRO} What is the name of the employee who was hired first?`,
      expected: answerOf.text(byDate[0]!.name),
    };
  }),
];
