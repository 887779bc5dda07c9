// @ts-check
// One question to `page_hooks.js` in the page's world, answered synchronously by an event
// (`page/src/content/page_world.rs`).
/**
 * @param {string} question
 * @param {string} reply
 */
export function ask_page_world(question, reply) {
  let answer = '';
  /** @param {Event} e */
  const onReply = (e) => {
    const { detail } = /** @type {CustomEvent} */ (e);
    if (typeof detail === 'string') answer = detail;
  };
  document.addEventListener(reply, onReply, true);
  try {
    document.dispatchEvent(new CustomEvent(question));
  } finally {
    document.removeEventListener(reply, onReply, true);
  }
  return answer;
}
