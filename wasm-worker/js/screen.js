// @ts-check
// A screenshot as RGBA pixels, decoded by the browser (`wasm-worker/src/tab/screen.rs`).
/**
 * @param {number} windowId
 * @returns {Promise<{ width: number, height: number, rgba: Uint8ClampedArray }>}
 */
export async function capture_pixels(windowId) {
  const url = await chrome.tabs.captureVisibleTab(windowId, { format: 'png' });
  const base64 = url.slice(url.indexOf(',') + 1);
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
  const { width, height } = bitmap;
  const canvas = new OffscreenCanvas(width, height);
  const context = canvas.getContext('2d', { willReadFrequently: true });
  if (!context) throw new Error('no 2d context for the screenshot');
  context.drawImage(bitmap, 0, 0);
  bitmap.close();
  return { width, height, rgba: context.getImageData(0, 0, width, height).data };
}
