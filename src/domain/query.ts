/** The query a run loaded (issue 38): the source, the SQL, and where its rows went. */
export interface RunQuery {
  source: string;
  sql: string;
  /** The CSV under `/mnt/data`. */
  file: string;
  /** The DataFrame's name in the kernel. */
  name: string;
  rows: number;
  bytes: number;
  ms: number;
  cut?: 'rows' | 'bytes';
}
