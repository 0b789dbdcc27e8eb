// Written by scripts/entries.mjs from build/src/admin/index.js: do not edit.
import { load } from './load.js';

export const {
  DEFAULT_ADMIN_OPTIONS, DEFAULT_DASHBOARD_OPTIONS, createAdmin, createDashboard, mountDashboard,
} = await load('admin/index.js');
