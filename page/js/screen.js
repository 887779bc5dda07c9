// @ts-check
// The boxes of a text node's lines (`page/src/content/screen.rs`).
/** @type {Document | null} */
let rangeDoc = null;
/** @type {Range | null} */
let range = null;
/**
 * @param {Node} node
 * @param {Float64Array} out
 */
export function line_boxes(node, out) {
  // One range per document, reused: creating one per node was a visible part of a small
  // page's call.
  const doc = node.ownerDocument ?? document;
  if (!range || doc !== rangeDoc) {
    rangeDoc = doc;
    range = doc.createRange();
  }
  range.selectNodeContents(node);
  const rects = range.getClientRects();
  const n = Math.min(rects.length, Math.floor(out.length / 4));
  for (let i = 0; i < n; i++) {
    const r = rects[i];
    out[4 * i] = r.left;
    out[4 * i + 1] = r.top;
    out[4 * i + 2] = r.width;
    out[4 * i + 3] = r.height;
  }
  return n;
}
