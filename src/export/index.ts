export {
  answerEntry,
  EXPORT_LIMITS,
  messageEntry,
  recordTurn,
  runEntry,
  type RecordTurnOptions,
} from './export-log.js';
export { exportThread, NOTEBOOK_NAME, REQUIREMENTS_NAME, type ExportThreadOptions } from './export-thread.js';
export { buildNotebook, type Notebook, type NotebookCell } from './notebook.js';
export { importedModules } from './python-imports.js';
export { packageVersions, type PackageVersions, type VersionsUnavailable } from './package-versions.js';
export { buildRequirements } from './requirements.js';
