// Opened by the service worker (see worker/interventions.rs) to play the chime when no side
// panel is open.
import { playChime } from './chime.js';

playChime();
document.body.dataset.chimed = '1';
