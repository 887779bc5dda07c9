// What the extension's scripts add to their global object (hand-written for `checkJs`, see
// jsconfig.json; never shipped).
interface Window {
  /** Set once `page_hooks.js` has wrapped the page's functions (it runs at most once). */
  __waymarkHooks?: boolean;
}

/** Sends a request to the service worker; its type is generated from the Rust `PanelRequest`
 * (`extension/types/`, see `wasm-core/src/panel/types.rs`). */
type SendToWorker = (msg: PanelRequest) => void;
type PanelRequest = import('./types/PanelRequest').PanelRequest;
type GuideAction = import('./types/GuideAction').GuideAction;
type ModelPreset = import('./types/ModelPreset').ModelPreset;
type InterventionSettings = import('./types/InterventionSettings').InterventionSettings;
type RoutineForm = import('./types/RoutineForm').RoutineForm;
type SettingsForm = import('./types/SettingsForm').SettingsForm;
type WorkflowEdit = import('./types/WorkflowEdit').WorkflowEdit;
type OutputMode = import('./types/OutputMode').OutputMode;
type ExportFormat = import('./types/ExportFormat').ExportFormat;
type TrackedValues = import('./types/TrackedValues').TrackedValues;
/** A value the DOM holds as text, read as the Rust enum it names (the worker refuses others). */
type Named<T> = T;
