# ruff: noqa: E501, W291 - the simulators print these lines as they are
"""Simulator output written as the simulators print it (the formats of GPGPU-Sim's gpu_print_stat and
print_simulation_time, gem5's text stats, Accel-Sim's get_stats.py), for the reader tests."""

HEADER = """        *** GPGPU-Sim Simulator Version 4.0.0  [build gpgpu-sim_git-commit-90ec3399763d7c8512cfe7dc193473086c38ca38] ***

GPGPU-Sim: Configuration options:

-gpgpu_n_clusters                      80 # number of processing clusters
-gpgpu_max_insn                         0 # terminates gpu simulation early (0 = no limit)
-gpgpu_clock_domains 1132.0:1132.0:1132.0:850.0 # Clock Domain Frequencies in MhZ {<Core Clock>:<ICNT Clock>:<L2 Clock>:<DRAM Clock>}
"""


def block(name: str, uid: int, cycles: int, insn: int, tot_cycles: int, tot_insn: int, tot_cta: int,
          stream: int | None = None, extra: str = "") -> str:
    stream_line = f"kernel_stream_id = {stream}\n" if stream is not None else ""
    return f"""GPGPU-Sim PTX: pushing kernel '{name}' to stream 0, gridDim= (4,1,1) blockDim = (256,1,1)
GPGPU-Sim uArch: Shader 0 bind to kernel {uid} '{name}'
GPGPU-Sim uArch: cycles simulated: 500  inst.: 1200 (ipc= 2.4) sim_rate=1200 (inst/sec) elapsed = 0:0:00:01
GPGPU-Sim: *** simulation thread exiting ***
kernel_name = {name} 
kernel_launch_uid = {uid} 
{stream_line}gpu_sim_cycle = {cycles}
gpu_sim_insn = {insn}
gpu_ipc =     {insn / cycles:8.4f}
gpu_tot_sim_cycle = {tot_cycles}
gpu_tot_sim_insn = {tot_insn}
gpu_tot_ipc =     {tot_insn / tot_cycles:8.4f}
gpu_tot_issued_cta = {tot_cta}
gpu_occupancy = 23.4567% 
gpu_tot_occupancy = 23.4567% 
max_total_param_size = 0
gpu_stall_dramfull = 0
gpu_stall_icnt2sh    = 3
L2_BW  =      12.3400 GB/Sec
L2_BW_total  =      12.3400 GB/Sec
gpu_total_sim_rate=1200
{extra}
Total_core_cache_stats:
	Total_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT] = 10
	Total_core_cache_stats_breakdown[GLOBAL_ACC_R][MISS] = 20
	L1D_cache_core[0]: Access = 30, Miss = 20, Miss_rate = 0.667, Pending_hits = 0, Reservation_fails = 0
	L1D_cache_core[1]: Access = 0, Miss = 0, Miss_rate = -nan, Pending_hits = 0, Reservation_fails = 0
L2_total_cache_accesses = 40
L2_total_cache_misses = 12
L2_total_cache_miss_rate = 0.3000
total dram reads = 12
total dram writes = 4

icnt_total_pkts_mem_to_simt=80
icnt_total_pkts_simt_to_mem=40

gpgpu_simulation_time = 0 days, 0 hrs, 0 min, {uid} sec ({uid} sec)
gpgpu_simulation_rate = {tot_insn // uid} (inst/sec)
gpgpu_simulation_rate = {tot_cycles // uid} (cycle/sec)
gpgpu_silicon_slowdown = 943333x
"""


EXIT = "GPGPU-Sim: *** exit detected ***\n"
LIMIT = "GPGPU-Sim: ** break due to reaching the maximum cycles (or instructions) **\n"
VEC = "_Z6vecAddPfS_S_i"
SGEMM = "_Z9sgemm_nt_PKfiS0_iPfiiff"


def log(kernels=3, end=EXIT) -> str:
    """A run of ``kernels`` launches: vecAdd, sgemm, vecAdd, ... with cumulative totals."""
    out, tc, ti, cta = [HEADER], 0, 0, 0
    for k in range(kernels):
        name = VEC if k % 2 == 0 else SGEMM
        c, i = 1000 + 100 * k, 5000 + 1000 * k
        tc, ti, cta = tc + c, ti + i, cta + 4 + k
        out.append(block(name, k + 1, c, i, tc, ti, cta))
    out.append(end)
    return "".join(out)


GEM5_V21 = """
---------- Begin Simulation Statistics ----------
simSeconds                                   0.000031                       # Number of seconds simulated (Second)
simTicks                                     30765204                       # Number of ticks simulated (Tick)
hostTickRate                                557623505                       # The number of ticks simulated per host second (ticks/s) ((Tick/Second))
simInsts                                         6555                       # Number of instructions simulated (Count)
board.processor.cores.core.numCycles            92296                       # Number of cpu cycles simulated (Cycle)
board.processor.cores.core.commitStats0.numInsts         6555                       # Number of instructions committed (Count)
board.processor.cores.core.ipc               0.071021                       # IPC: instructions per cycle ((Count/Cycle))
board.cache_hierarchy.l1dcaches.overallMisses::cpu.data          300                       # number of overall misses (Count)
board.cache_hierarchy.l1dcaches.overallMisses::total          300                       # number of overall misses (Count)
board.cache_hierarchy.l1dcaches.demandAvgMissLatency::cpu.data          nan                       # average overall miss latency ((Tick/Count))
board.memory.mem_ctrl.readBursts::0-31          12     40.00%     40.00% # Read burst lengths (Count)
board.memory.mem_ctrl.readBursts::32-63         18     60.00%    100.00% # Read burst lengths (Count)

---------- End Simulation Statistics   ----------

---------- Begin Simulation Statistics ----------
simSeconds                                   0.000062                       # Number of seconds simulated (Second)
simTicks                                     61530408                       # Number of ticks simulated (Tick)
simInsts                                        13110                       # Number of instructions simulated (Count)
board.processor.cores.core.numCycles           184592                       # Number of cpu cycles simulated (Cycle)
board.cache_hierarchy.l1dcaches.overallMisses::total          640                       # number of overall misses (Count)

---------- End Simulation Statistics   ----------

---------- Begin Simulation Statistics ----------
simSeconds                                   0.000093                       # Number of seconds simulated (Second)
simTicks                                     92295612                       # Number
"""

GETSTATS_APPS = """----------------------------------------------------------------------------------------------------,,
gpu_tot_sim_cycle\\s*=\\s*(.*),,
APPS,QV100-PTX,RTX2060-PTX
backprop-rodinia-2.0-ft/4096___data_result_4096_txt--final_kernel,64005,70210
hotspot-rodinia-2.0-ft/30_6_40___data_result_30_6_40_txt--final_kernel,101234,NA
----------------------------------------------------------------------------------------------------,,
gpu_ipc\\s*=\\s*(.*),,
APPS,QV100-PTX,RTX2060-PTX
backprop-rodinia-2.0-ft/4096___data_result_4096_txt--final_kernel,812.1,640.2
hotspot-rodinia-2.0-ft/30_6_40___data_result_30_6_40_txt--final_kernel,1200.5,NA
"""

GETSTATS_K = """----------------------------------------------------------------------------------------------------,
gpu_tot_sim_cycle\\s*=\\s*(.*),
APPS,QV100-PTX
backprop-rodinia-2.0-ft/4096___data_result_4096_txt--_Z22bpnn_layerforward_CUDAPfS_S_S_ii--0,31000
backprop-rodinia-2.0-ft/4096___data_result_4096_txt--_Z24bpnn_adjust_weights_cudaPfiS_iS_S_--0,33005
backprop-rodinia-2.0-ft/4096___data_result_4096_txt--void gemm<float, 2>(float*, int)--0,9000
backprop-rodinia-2.0-ft/4096___data_result_4096_txt--void gemm<float, 2>(float*, int)--1,9100
"""

GETSTATS_R = """----------------------------------------------------------------------------------------------------,,
gpu_tot_sim_cycle\\s*=\\s*(.*),,
CFG,backprop-rodinia-2.0-ft/4096___data_result_4096_txt--final_kernel,hotspot-rodinia-2.0-ft/NO_ARGS--final_kernel
QV100-PTX,64005,101234
RTX2060-PTX,70210,NA
"""
