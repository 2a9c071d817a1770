/* Tests that run a form of a stage other than the context's default set one field of its
 * tuning plans (src/algo/plans.h) for the calls that follow, and put the whole back after. */
#ifndef GPGPU_TEST_PLANS_H
#define GPGPU_TEST_PLANS_H

#include "algo/plans.h"

#define TEST_PLAN(ctx, field, value)                 \
    do {                                             \
        algo_plans plan_ = algo_plans_get(ctx);      \
        plan_.field = (value);                       \
        algo_plans_set((ctx), &plan_);               \
    } while (0)

#endif /* GPGPU_TEST_PLANS_H */
