// @ts-check
// Arms the answer to the dialogs the next action opens (`page/src/content/dialogs.rs`).
/** @param {string} answer a JSON string `{accept, text}` */
export function arm_dialogs(answer) {
  document.dispatchEvent(new CustomEvent('waymark-dialog-arm', { detail: answer }));
}
