/*
 * hooks.h - every hook mrfdp installs (hooks.c).
 */
#ifndef MRF_PG_HOOKS_H
#define MRF_PG_HOOKS_H

/*
 * Installs the parse-analysis, planner, executor-start, emit-log and (during shared
 * preload) shared-memory hooks, each chaining the hook before it.  Called
 * once, from _PG_init.
 */
void		MrfInstallHooks(void);

#endif
