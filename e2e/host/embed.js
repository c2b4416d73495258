// The script of docs/page.md's embed snippet: frames KnobLab's #/embed
// route, hears the player's messages (only those from KnobLab's origin) and
// acts by posting to the frame with KnobLab's origin as the target.
const knoblab = new URL(new URLSearchParams(location.search).get('knoblab'));
const frame = document.getElementById('knoblab');
window.received = [];
window.addEventListener('message', (event) => {
  if (event.origin !== knoblab.origin || event.source !== frame.contentWindow) return;
  if (event.data?.source !== 'knoblab') return;
  window.received.push(event.data);
});
/** Sends one action, e.g. `Click(coord=[120, 80])`, to the player. */
window.act = (action) => frame.contentWindow.postMessage({ type: 'act', action }, knoblab.origin);
frame.src = knoblab.href;
