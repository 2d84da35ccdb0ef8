"""nvprof metric and event names and their Nsight Compute equivalents, so two profilers give one set of columns.

Source: NVIDIA, *Nsight Compute CLI* documentation, chapter "Nvprof Transition Guide", sections "Metric
Comparison" and "Event Comparison" (https://docs.nvidia.com/nsight-compute/NsightComputeCli/index.html#nvprof-guide;
the table for compute capability 7.0 and later). The entries follow that table as the project knows it; its text
could not be retrieved where this table was last revised, so they were checked only against other public code
(e.g. ``ipc`` as ``sm__inst_executed.avg.per_cycle_active``, a per-SM rate four times the sub-partition's
``smsp__`` one) and should be read against the guide before a team relies on a mapping. ``l2_read_transactions``
and ``l2_write_transactions`` are sums of three ncu metrics there (read or write sectors plus atomic and reduction
sectors), so they are not mapped. Where two nvprof names have one ncu equivalent (``gld_request`` and
``inst_executed_global_loads``), the one listed first below is renamed and the other keeps its nvprof name.

Only one-to-one correspondences are listed; nvprof metrics that the guide expresses as a formula over
several ncu metrics (``flop_count_sp``, ``cf_executed``, ``stall_exec_dependency``, ``l2_read_transactions``,
...) are not, and stay under their nvprof name (so they are listed as one-sided when the other profile is
ncu, never silently dropped). nvprof's 0-10 utilization levels (``dram_utilization``, ...) have no linear
equivalent among ncu's percentages and are not mapped either.

``scale`` converts the nvprof value to the ncu metric's unit where the two differ: nvprof's
``achieved_occupancy`` is a fraction, ncu's ``sm__warps_active.avg.pct_of_peak_sustained_active`` a percent
(x 100); ``warp_execution_efficiency`` is a percent of 32 threads, ncu's
``smsp__thread_inst_executed_per_inst_executed.ratio`` threads per instruction (x 32 / 100). A scaled metric
takes the unit Nsight Compute prints for its new name (:data:`NCU_UNITS`: threads per instruction print with no
unit, as ncu's details page shows "Avg. Active Threads Per Warp"), not nvprof's. nvprof trace's ``Duration`` is
ncu's ``gpu__time_duration.sum`` (both converted to seconds on reading).
"""

from __future__ import annotations

#: nvprof name -> (Nsight Compute name, scale from the nvprof value to the ncu value)
NVPROF_TO_NCU = {
    # metrics
    "achieved_occupancy": ("sm__warps_active.avg.pct_of_peak_sustained_active", 100.0),
    "branch_efficiency": ("smsp__sass_average_branch_targets_threads_uniform.pct", 1.0),
    "dram_read_bytes": ("dram__bytes_read.sum", 1.0),
    "dram_write_bytes": ("dram__bytes_write.sum", 1.0),
    "dram_read_throughput": ("dram__bytes_read.sum.per_second", 1.0),
    "dram_write_throughput": ("dram__bytes_write.sum.per_second", 1.0),
    "dram_read_transactions": ("dram__sectors_read.sum", 1.0),
    "dram_write_transactions": ("dram__sectors_write.sum", 1.0),
    "eligible_warps_per_cycle": ("smsp__warps_eligible.sum.per_cycle_active", 1.0),
    "flop_count_sp_add": ("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 1.0),
    "flop_count_sp_mul": ("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 1.0),
    "flop_count_sp_fma": ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 1.0),
    "flop_count_dp_add": ("smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", 1.0),
    "flop_count_dp_mul": ("smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", 1.0),
    "flop_count_dp_fma": ("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", 1.0),
    "gld_efficiency": ("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", 1.0),
    "gst_efficiency": ("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct", 1.0),
    "gld_throughput": ("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second", 1.0),
    "gst_throughput": ("l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum.per_second", 1.0),
    "gld_transactions": ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1.0),
    "gst_transactions": ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 1.0),
    "gld_transactions_per_request": ("l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio", 1.0),
    "gst_transactions_per_request": ("l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio", 1.0),
    "global_load_requests": ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1.0),
    "global_store_requests": ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 1.0),
    "inst_executed": ("smsp__inst_executed.sum", 1.0),
    "inst_issued": ("smsp__inst_issued.sum", 1.0),
    "inst_per_warp": ("smsp__average_inst_executed_per_warp.ratio", 1.0),
    "ipc": ("sm__inst_executed.avg.per_cycle_active", 1.0),
    "issued_ipc": ("sm__inst_issued.avg.per_cycle_active", 1.0),
    "issue_slots": ("smsp__inst_issued.sum", 1.0),
    "issue_slot_utilization": ("smsp__issue_active.avg.pct_of_peak_sustained_active", 1.0),
    "l2_tex_hit_rate": ("lts__t_sector_hit_rate.pct", 1.0),
    "tex_cache_hit_rate": ("l1tex__t_sector_hit_rate.pct", 1.0),
    "local_load_transactions": ("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", 1.0),
    "local_store_transactions": ("l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", 1.0),
    "inst_executed_global_loads": ("smsp__inst_executed_op_global_ld.sum", 1.0),
    "inst_executed_global_stores": ("smsp__inst_executed_op_global_st.sum", 1.0),
    "inst_executed_local_loads": ("smsp__inst_executed_op_local_ld.sum", 1.0),
    "inst_executed_local_stores": ("smsp__inst_executed_op_local_st.sum", 1.0),
    "inst_executed_shared_loads": ("smsp__inst_executed_op_shared_ld.sum", 1.0),
    "inst_executed_shared_stores": ("smsp__inst_executed_op_shared_st.sum", 1.0),
    "inst_fp_16": ("smsp__sass_thread_inst_executed_op_fp16_pred_on.sum", 1.0),
    "inst_fp_32": ("smsp__sass_thread_inst_executed_op_fp32_pred_on.sum", 1.0),
    "inst_fp_64": ("smsp__sass_thread_inst_executed_op_fp64_pred_on.sum", 1.0),
    "inst_integer": ("smsp__sass_thread_inst_executed_op_integer_pred_on.sum", 1.0),
    "flop_count_hp_add": ("smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", 1.0),
    "flop_count_hp_mul": ("smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", 1.0),
    "flop_count_hp_fma": ("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", 1.0),
    "flop_count_sp_special": ("smsp__sass_thread_inst_executed_op_mufu_pred_on.sum", 1.0),
    "flop_sp_efficiency": (
        "smsp__sass_thread_inst_executed_ops_fadd_fmul_ffma_pred_on.avg.pct_of_peak_sustained_elapsed", 1.0),
    "flop_dp_efficiency": (
        "smsp__sass_thread_inst_executed_ops_dadd_dmul_dfma_pred_on.avg.pct_of_peak_sustained_elapsed", 1.0),
    "shared_efficiency": ("smsp__sass_average_data_bytes_per_wavefront_mem_shared.pct", 1.0),
    "shared_load_transactions": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 1.0),
    "shared_store_transactions": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 1.0),
    "sm_efficiency": ("smsp__cycles_active.avg.pct_of_peak_sustained_elapsed", 1.0),
    "stall_memory_dependency": ("smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct", 1.0),
    "stall_sync": ("smsp__warp_issue_stalled_barrier_per_warp_active.pct", 1.0),
    "warp_execution_efficiency": ("smsp__thread_inst_executed_per_inst_executed.ratio", 0.32),
    # events
    "active_cycles": ("sm__cycles_active.sum", 1.0),
    "active_warps": ("sm__warps_active.sum", 1.0),
    "elapsed_cycles_sm": ("sm__cycles_elapsed.sum", 1.0),
    "warps_launched": ("smsp__warps_launched.sum", 1.0),
    "threads_launched": ("smsp__threads_launched.sum", 1.0),
    "thread_inst_executed": ("smsp__thread_inst_executed.sum", 1.0),
    "sm_cta_launched": ("sm__ctas_launched.sum", 1.0),
    "branch": ("smsp__sass_branch_targets.sum", 1.0),
    "divergent_branch": ("smsp__sass_branch_targets_threads_divergent.sum", 1.0),
    "gld_request": ("smsp__inst_executed_op_global_ld.sum", 1.0),
    "gst_request": ("smsp__inst_executed_op_global_st.sum", 1.0),
    "shared_load": ("smsp__inst_executed_op_shared_ld.sum", 1.0),
    "shared_store": ("smsp__inst_executed_op_shared_st.sum", 1.0),
    # GPU trace
    "Duration": ("gpu__time_duration.sum", 1.0),
}

#: the unit of each scaled entry's Nsight Compute name (as read: ``modeling.tables.profilers.values``)
NCU_UNITS = {
    "sm__warps_active.avg.pct_of_peak_sustained_active": "%",
    "smsp__thread_inst_executed_per_inst_executed.ratio": "",
}


def ncu_names(metrics: list[str]) -> dict[str, tuple[str, float]]:
    """For each nvprof metric with an Nsight Compute equivalent: ``{nvprof name: (ncu name, scale)}``."""
    return {m: NVPROF_TO_NCU[m] for m in metrics if m in NVPROF_TO_NCU}


def align(host: list[str], target: list[str]) -> dict:
    """The metrics both sides have and those only one side has (in each side's order)."""
    t, h = set(target), set(host)
    return {"common": [m for m in host if m in t], "host_only": [m for m in host if m not in t],
            "target_only": [m for m in target if m not in h]}
