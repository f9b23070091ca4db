/*
 * The part of DAQP's C interface that the compiled thrust allocation calls (DAQP 0.11: Arnstrom,
 * Bemporad and Axehill, "A dual active-set solver for embedded quadratic programming using
 * recursive LDL' updates", IEEE Transactions on Automatic Control 67(8), 2022).
 *
 * The solver is not compiled here: its functions are those of the daqp package's extension
 * module, the very code the package's Python interface runs, found at run time
 * (``allocation_bind_daqp``). The structures below declare that build's memory layout (the
 * problem, the settings, the result and the workspace, whose settings pointer the allocation
 * sets), so the package is pinned to its 0.11 series and the layout is checked when bound.
 */
#ifndef ORCHESTRATOR_DAQP_H
#define ORCHESTRATOR_DAQP_H

#define DAQP_INFINITY 1e30 /* DAQP's unbounded */
#define DAQP_SENSE_EQUALITY 5 /* a constraint active and immutable */
#define DAQP_UPDATE_BOUNDS 8 /* daqp_update_ldp: the bounds changed */

typedef struct {
    int n, m, ms; /* variables, constraints, simple bounds (the first ms constraints) */
    double *H, *f, *A, *bupper, *blower;
    int *sense;
    int *break_points;
    int nh;
    int problem_type;
} DaqpProblem;

typedef struct {
    double primal_tol, dual_tol, zero_tol, pivot_tol, progress_tol;
    int cycle_tol, iter_limit;
    double fval_bound, eps_prox, eta_prox, rho_soft, rel_subopt, abs_subopt, sing_tol;
    double refactor_tol, time_limit, w_soft;
    int eq_reduction, presolve;
} DaqpSettings;

typedef struct {
    double *x, *lam;
    double fval, soft_slack;
    int exitflag, iter, nodes;
    double solve_time, setup_time;
} DaqpResult;

typedef struct {
    DaqpProblem *qp;
    int n, m, ms;
    double *M, *dupper, *dlower, *Rinv, *v;
    int *sense;
    double *scaling, *RinvD, *x, *xold, *lam, *lam_star, *u;
    double fval;
    double *L, *D, *xldl, *zldl;
    int reuse_ind;
    int *WS;
    int n_active, iterations, sing_ind;
    int *prox_mask;
    int n_prox;
    double soft_slack;
    DaqpSettings *settings;
    void *bnb;
    int outer_iter;
    void *hierarchy, *avi, *eq, *timer;
    double *Mu, *rho_ls, *rho_us, *w_ls, *w_us;
    int state;
} DaqpWorkspace;

#endif
