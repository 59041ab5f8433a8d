"""The words every message of the core is said in, English and French, from one table.

The core raises and returns codes with their values (`Message`, and `Said` for errors): a file left out and why, an
analysis's warnings, why a rank is late, the prefetch lesson, why a run cannot be fitted, what a threshold was read
as. The command line says them in English, the page in its language; nothing reads English back. A value that is
itself a Message is said in the same language; a number is written the language's way.

>>> say("file.empty"), say("file.empty", "fr")
('empty file', 'fichier vide')
>>> say("file.over_limit", "fr", mib=200)
'plus que la limite de 200 Mio'
>>> Said("file.empty").message.text("fr")
'fichier vide'
>>> Message.of("cause.forward", ms=Ms(40.52)).text(), Message.of("cause.forward", ms=Ms(40.52)).text("fr")
('40.5 ms a step longer in its forward', '40,5\u202fms par pas de plus dans son forward')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["LANGS", "NBSP", "WORDS", "Message", "Ms", "Ratio", "Said", "Share", "listed", "placeholders", "say"]

LANGS = ("en", "fr")
NBSP = "\u202f"
"""French puts a narrow no-break space between a number and its unit, and between thousands."""

WORDS: dict[str, dict[str, str]] = {
    # --- a file left out, and why ----------------------------------------------------------------------------------
    "file.empty": {"en": "empty file", "fr": "fichier vide"},
    "file.gzip_truncated": {"en": "not a readable gzip file (truncated)", "fr": "fichier gzip illisible (tronqué)"},
    "file.gzip_trailing": {
        "en": "not a readable gzip file (data after the last member)",
        "fr": "fichier gzip illisible (données après la fin)",
    },
    "file.gzip": {"en": "not a readable gzip file ({detail})", "fr": "fichier gzip illisible ({detail})"},
    "file.too_big": {
        "en": "{size} MiB is over the {mib} MiB limit",
        "fr": "{size} Mio dépasse la limite de {mib} Mio",
    },
    "file.over_limit_inflated": {
        "en": "over the {mib} MiB limit once decompressed",
        "fr": "plus que la limite de {mib} Mio une fois décompressé",
    },
    "file.over_limit": {"en": "over the {mib} MiB limit", "fr": "plus que la limite de {mib} Mio"},
    "file.nested": {
        "en": "JSON nested deeper than {levels} levels: not a trace",
        "fr": "JSON imbriqué sur plus de {levels} niveaux : pas une trace",
    },
    "file.not_utf8": {
        "en": "not UTF-8 text (neither JSON nor JSONL)",
        "fr": "pas du texte UTF-8 (ni JSON ni JSONL)",
    },
    "file.json_at_line": {
        "en": "invalid JSON at line {line}: {reason}",
        "fr": "JSON invalide à la ligne {line} : {reason}",
    },
    "file.json_too_deep": {
        "en": "JSON nested too deep at line {line}: {reason}",
        "fr": "JSON trop imbriqué à la ligne {line} : {reason}",
    },
    "file.jsonl_line": {"en": "line {line}: {reason} (invalid JSON)", "fr": "ligne {line} : {reason} (JSON invalide)"},
    "json.expected": {"en": "expected {expected}, found {found}", "fr": "{expected} attendu, {found} trouvé"},
    "json.end": {"en": "the end of the file", "fr": "la fin du fichier"},
    "json.number_too_long": {"en": "a number too long to read", "fr": "nombre trop long"},
    "json.key_not_string": {"en": "an object key must be a string", "fr": "une clé d'objet doit être une chaîne"},
    "json.not_a_trace": {"en": "not a trace", "fr": "pas une trace"},
    "json.decoder": {"en": "{detail}", "fr": "{detail}"},
    "file.extra_summary": {
        "en": "invalid JSON: extra data after the summary (line {line})",
        "fr": "JSON invalide : données après le résumé (ligne {line})",
    },
    "file.extra_trace": {
        "en": "invalid JSON: extra data after the profiler trace (line {line})",
        "fr": "JSON invalide : données après la trace du profileur (ligne {line})",
    },
    "file.no_events_list": {
        "en": "JSON without a 'traceEvents' list: not a PyTorch profiler trace",
        "fr": "JSON sans liste 'traceEvents' : pas une trace du profileur PyTorch",
    },
    "compare.world": {
        "en": "the runs have different ranks ({before} before, {after} after): ranks are not compared one by one",
        "fr": "les exécutions n'ont pas les mêmes rangs ({before} avant, {after} après) : les rangs ne sont pas "
        "comparés un à un",
    },
    "compare.whatif_all": {
        "en": "the run after has no straggler left, persistent or transient: it tests the whole prediction",
        "fr": "l'exécution d'après n'a plus de retardataire, persistant ou passager : elle teste toute la prédiction",
    },
    "compare.whatif_went": {
        "en": "the run after still has stragglers: it tests only the part of the prediction for those that went",
        "fr": "l'exécution d'après a encore des retardataires : elle ne teste que la part de la prédiction due à ceux "
        "qui sont partis",
    },
    "compare.whatif_moved": {
        "en": "{appeared} appeared in the run after: the straggler moved, and the run after does not test the "
        "prediction",
        "fr": "nouveau dans l'exécution d'après : {appeared} ; le retardataire a changé de rang, et l'exécution "
        "d'après ne teste pas la prédiction",
    },
    "compare.whatif_stayed": {
        "en": "{stayed} stayed and none went: the run after does not test the prediction",
        "fr": "toujours en retard : {stayed}, et aucun n'est parti : l'exécution d'après ne teste pas la prédiction",
    },
    "compare.whatif_none_before": {
        "en": "the run before named no persistent straggler, and the run after still has transient ones: it does "
        "not test the prediction",
        "fr": "l'exécution d'avant n'a désigné aucun retardataire persistant, et celle d'après a encore des "
        "passagers : elle ne teste pas la prédiction",
    },
    "compare.verdicts": {
        "en": "verdicts: before, persistent: {before}, transient steps: {before_steps}; after, persistent: {after}, "
        "transient steps: {after_steps}",
        "fr": "verdicts : avant, persistants : {before}, pas passagers : {before_steps} ; après, persistants : "
        "{after}, pas passagers : {after_steps}",
    },
    "compare.whatif_new": {
        "en": "{appeared} appeared in the run after, where the run before named none: the run after does not test "
        "the prediction",
        "fr": "nouveau dans l'exécution d'après, où celle d'avant n'en désignait aucun : {appeared} ; l'exécution "
        "d'après ne teste pas la prédiction",
    },
    "compare.missed": {
        "en": "the run after is {gain} a step faster ({share}) than the run before predicted without the stragglers "
        "it named, beyond noise: what slowed the run before, its verdict did not name (every rank slowed alike, a "
        "straggler too small or too brief for its steps, or a change of the work itself)",
        "fr": "l'exécution d'après est plus rapide de {gain} par pas ({share}) que celle d'avant ne le prédisait sans "
        "les retardataires qu'elle a désignés, au-delà du bruit : ce qui ralentissait l'exécution d'avant, son "
        "verdict ne l'a pas désigné (tous les rangs ralentis de même, un retardataire trop petit ou trop bref pour "
        "ses pas, ou un changement du travail lui-même)",
    },
    "ranks.one": {"en": "rank {ranks}", "fr": "rang {ranks}"},
    "ranks.many": {"en": "ranks {ranks}", "fr": "rangs {ranks}"},
    "ranks.none": {"en": "no rank", "fr": "aucun rang"},
    "page.too_large": {
        "en": "about {ranks} ranks x {steps} steps is more than this page holds ({most} rank-steps): run python -m "
        "ddpcore analyze FOLDER --fit on a machine with the files",
        "fr": "environ {ranks} rangs x {steps} pas, c'est plus que cette page ne peut tenir ({most} rangs-pas) : "
        "lancez python -m ddpcore analyze DOSSIER --fit sur une machine qui a les fichiers",
    },
    "file.parquet": {
        "en": "a Parquet summary: the analysis reads the columnar ones (summarize without --format parquet)",
        "fr": "un résumé Parquet : l'analyse lit les résumés en colonnes (summarize sans --format parquet)",
    },
    "file.foreign": {
        "en": "{what}: not a format ddpcore reads. It reads PyTorch profiler traces (.json, .json.gz), ddpcore JSONL "
        "(its Recorder) and ddpcore summaries (summarize)",
        "fr": "{what} : pas un format que ddpcore lit. Il lit les traces du profileur PyTorch (.json, .json.gz), le "
        "JSONL de ddpcore (son Recorder) et les résumés de ddpcore (summarize)",
    },
    "foreign.chrome": {
        "en": "a Chrome trace not written by PyTorch's profiler",
        "fr": "une trace Chrome qui n'est pas du profileur PyTorch",
    },
    "foreign.parquet": {
        "en": "a Parquet file not written by ddpcore",
        "fr": "un fichier Parquet qui n'est pas de ddpcore",
    },
    "file.not_trace": {
        "en": "JSON that is not a trace (neither a PyTorch profiler trace nor ddpcore JSONL)",
        "fr": "JSON qui n'est pas une trace (ni trace du profileur PyTorch ni JSONL ddpcore)",
    },
    "file.event_number": {
        "en": "event {event}: '{key}' not a finite number within ±{limit}",
        "fr": "événement {event} : '{key}' n'est pas un nombre fini compris dans ±{limit}",
    },
    "file.line_number": {
        "en": "line {line}: '{key}' not a finite number within ±{limit}",
        "fr": "ligne {line} : '{key}' n'est pas un nombre fini compris dans ±{limit}",
    },
    "file.whole": {
        "en": "{field} must be a whole number from {low} to {high}",
        "fr": "{field} doit être un nombre entier de {low} à {high}",
    },
    "file.line_whole": {
        "en": "line {line}: '{key}' must be a whole number from {low} to {high}",
        "fr": "ligne {line} : '{key}' doit être un nombre entier de {low} à {high}",
    },
    "file.step_digits": {
        "en": "a ProfilerStep number of {digits} digits: over {high}",
        "fr": "un numéro de ProfilerStep de {digits} chiffres : plus que {high}",
    },
    "file.negative_step": {
        "en": "event {event} ({name}): 'dur' is {dur} µs: a step cannot last less than 0",
        "fr": "événement {event} ({name}) : 'dur' vaut {dur} µs : un pas ne peut durer moins que 0",
    },
    "file.no_rank": {
        "en": "no distributedInfo.rank: record with torch.distributed initialised",
        "fr": "pas de distributedInfo.rank : enregistrez avec torch.distributed initialisé",
    },
    "file.no_steps_negative": {
        "en": "no host ProfilerStep#N events kept: events with a negative 'dur' were left out (first: event {event}, "
        "{name}, {dur} µs)",
        "fr": "aucun événement hôte ProfilerStep#N gardé : des événements au 'dur' négatif ont été écartés (premier : "
        "événement {event}, {name}, {dur} µs)",
    },
    "file.no_steps": {
        "en": "no host ProfilerStep#N events: profile with a schedule and call prof.step() each step",
        "fr": "aucun événement hôte ProfilerStep#N : profilez avec un schedule et appelez prof.step() à chaque pas",
    },
    "file.jsonl_object": {
        "en": "line {line}: expected an object with rank, step, phase, start, end",
        "fr": "ligne {line} : un objet avec rank, step, phase, start, end était attendu",
    },
    "file.jsonl_phase": {
        "en": "line {line}: 'phase' must be one of {phases}",
        "fr": "ligne {line} : 'phase' doit être l'un de {phases}",
    },
    "file.jsonl_times": {
        "en": "line {line}: 'start' and 'end' must be finite seconds with end >= start",
        "fr": "ligne {line} : 'start' et 'end' doivent être des secondes finies avec end >= start",
    },
    "file.jsonl_rank": {
        "en": "line {line}: rank {rank} in a file of rank {first} (one file per rank)",
        "fr": "ligne {line} : rang {rank} dans un fichier du rang {first} (un fichier par rang)",
    },
    "file.jsonl_empty": {"en": "no events: an empty JSONL trace", "fr": "aucun événement : une trace JSONL vide"},
    "file.titan_object": {
        "en": "line {line}: expected an object of torchtitan's structured logs (rank, time_us, log_type_name)",
        "fr": "ligne {line} : un objet des journaux structurés de torchtitan (rank, time_us, log_type_name) était "
        "attendu",
    },
    "file.titan_times": {
        "en": "line {line}: 'time_us' must be finite microseconds, a span's end no earlier than its start",
        "fr": "ligne {line} : 'time_us' doit être un nombre fini de microsecondes, la fin d'un intervalle pas avant "
        "son début",
    },
    "file.titan_steps": {
        "en": "torchtitan's logs with no step holding a fwd_bwd span: log a training run with the structured logger "
        "on (DebugConfig.enable_structured_logging)",
        "fr": "journaux de torchtitan sans aucun pas contenant un intervalle fwd_bwd : journalisez un entraînement "
        "avec le journal structuré activé (DebugConfig.enable_structured_logging)",
    },
    "summary.row": {"en": "step row {row}", "fr": "ligne de pas {row}"},
    "summary.row_column": {"en": "step row {row} '{column}'", "fr": "ligne de pas {row} '{column}'"},
    "summary.field": {"en": "'{field}'", "fr": "'{field}'"},
    "file.summary_number": {
        "en": "summary {where}: not a finite number",
        "fr": "résumé {where} : pas un nombre fini",
    },
    "file.summary_range": {
        "en": "summary {where}: {value} out of range",
        "fr": "résumé {where} : {value} hors limites",
    },
    "file.summary_whole": {
        "en": "summary {where}: a whole number from 0 to {high}",
        "fr": "résumé {where} : un nombre entier de 0 à {high}",
    },
    "file.summary_row": {
        "en": "summary {where}: expected {count} values",
        "fr": "résumé {where} : {count} valeurs attendues",
    },
    "file.summary_flag": {
        "en": "summary {where}: '{column}' must be true or false",
        "fr": "résumé {where} : '{column}' doit valoir true ou false",
    },
    "file.summary_gpu": {
        "en": "summary {where}: the GPU columns must be all numbers or all null",
        "fr": "résumé {where} : les colonnes GPU doivent être toutes des nombres ou toutes null",
    },
    "file.summary_period": {
        "en": "summary {where}: 'period_ms' must be positive",
        "fr": "résumé {where} : 'period_ms' doit être positif",
    },
    "file.summary_twice": {
        "en": "a ddpcore summary with a step twice",
        "fr": "un résumé ddpcore avec un pas en double",
    },
    "file.summary_version": {
        "en": "a ddpcore summary of version {version}: this ddpcore reads versions {known}",
        "fr": "un résumé ddpcore de version {version} : ce ddpcore lit les versions {known}",
    },
    "file.summary_columns": {
        "en": "a ddpcore summary whose columns are not those of its version",
        "fr": "un résumé ddpcore dont les colonnes ne sont pas celles de sa version",
    },
    "file.columnar_header": {
        "en": "a version 3 ddpcore summary needs its header on its first line",
        "fr": "un résumé ddpcore de version 3 doit avoir son en-tête sur sa première ligne",
    },
    "file.columnar_length": {
        "en": "a version 3 ddpcore summary of {found} bytes of columns where its header promises {expected}",
        "fr": "un résumé ddpcore de version 3 de {found} octets de colonnes là où son en-tête en promet {expected}",
    },
    "file.columnar_range": {
        "en": "summary column '{column}': a value out of range",
        "fr": "colonne de résumé '{column}' : une valeur hors limites",
    },
    "file.summary_empty": {"en": "a ddpcore summary without steps", "fr": "un résumé ddpcore sans pas"},
    "file.second_for_rank": {
        "en": "a second file for rank {rank} (first: {first})",
        "fr": "un second fichier pour le rang {rank} (le premier : {first})",
    },
    "file.unreadable": {"en": "could not be read ({why})", "fr": "illisible ({why})"},
    "file.system": {"en": "{reason}", "fr": "{reason}"},
    "file.another_run": {
        "en": "another run than the {count} files kept ({kept}): its gradient releases drift apart from theirs, "
        "where the ranks of one run are released together",
        "fr": "un autre run que les {count} fichiers gardés ({kept}) : ses libérations de gradients dérivent par "
        "rapport aux leurs, alors que les rangs d'un même run sont libérés ensemble",
    },
    # --- a run that cannot be compared -------------------------------------------------------------------------------
    "run.two_ranks": {
        "en": "need traces of at least two ranks to compare them",
        "fr": "il faut les traces d'au moins deux rangs pour les comparer",
    },
    "run.no_common_step": {
        "en": "the ranks' traces share no step number: were they recorded in the same run?",
        "fr": "les traces des rangs n'ont aucun numéro de pas en commun : viennent-elles du même run ?",
    },
    "run.shard_twice": {
        "en": "rank {rank} is in two shards: give each shard its own ranks",
        "fr": "le rang {rank} est dans deux shards : donnez à chaque shard ses propres rangs",
    },
    "run.shards_apart": {
        "en": "rank {rank} ({source}) and rank {first} ({first_source}) are in different shards and of different runs "
        "(their steps' releases drift {drift} of a step apart): give the shards one run's files",
        "fr": "le rang {rank} ({source}) et le rang {first} ({first_source}) sont dans des shards différents et de "
        "runs différents (les fins de leurs collectives dérivent de {drift} pas) : donnez aux shards les fichiers "
        "d'un seul run",
    },
    "run.changed": {
        "en": "{source} changed while it was analysed: analyse the run again",
        "fr": "{source} a changé pendant l'analyse : analysez le run à nouveau",
    },
    "run.runs": {
        "en": "these files are from {count} runs, none larger than the others: {groups}. Give the files of one run",
        "fr": "ces fichiers viennent de {count} runs, aucun plus grand que les autres : {groups}. Donnez les fichiers "
        "d'un seul run",
    },
    # --- an analysis's warnings --------------------------------------------------------------------------------------
    "warn.group": {
        "en": "{first} (and {more} more like it: ranks {ranks})",
        "fr": "{first} (et {more} de plus du même genre : rangs {ranks})",
    },
    "warn.group_plain": {"en": "{first} (and {more} more like it)", "fr": "{first} (et {more} de plus du même genre)"},
    "warn.ranks_more": {"en": "{ranks} and {more} more", "fr": "{ranks} et {more} de plus"},
    "warn.plain": {"en": "{text}", "fr": "{text}"},
    "warn.partial": {
        "en": "rank {rank} ({source}): {extra} step(s) not in every rank's trace, left out",
        "fr": "rang {rank} ({source}) : {extra} pas absent(s) de la trace d'un autre rang, laissé(s) de côté",
    },
    "warn.warmup": {
        "en": "step {step} left out: a job's first iteration (DDP builds its buckets, kernels and allocators warm up) "
        "is not a step like the others",
        "fr": "pas {step} laissé de côté : la première itération d'un job (DDP construit ses buckets, noyaux et "
        "allocateurs chauffent) n'est pas un pas comme les autres",
    },
    "warn.one_step": {
        "en": "one step only: a straggler cannot be told from a one-off delay",
        "fr": "un seul pas : impossible de distinguer un retardataire d'un retard ponctuel",
    },
    "warn.some_ranks": {
        "en": "{loaded} of {world} ranks loaded: the straggler may be among the others",
        "fr": "{loaded} rangs chargés sur {world} : le retardataire peut être parmi les autres",
    },
    "warn.no_release": {
        "en": "{steps} step(s) without a gradient collective on every rank: there lateness is measured from each "
        "rank's own step start, which misses time lost between steps and after the first bucket",
        "fr": "{steps} pas sans collective de gradients sur chaque rang : leur retard est mesuré depuis le début du "
        "pas de chaque rang, ce qui manque le temps perdu entre les pas et après le premier bucket",
    },
    "warn.logged_spans": {
        "en": "these are a trainer's logged spans (torchtitan's): a rank late to the all-reduce it runs before fwd_bwd "
        "(slow loading, garbage collection, a checkpoint, the optimizer) is named with its cause, but a rank slow "
        "inside fwd_bwd is not seen, since every rank's fwd_bwd ends at the gradient all-reduce, and on GPUs these "
        "spans time kernel launches, not kernels; to see it, record with ddpcore's comm hook (ddpcore.ops) or a "
        "profiler window",
        "fr": "ce sont les intervalles journalisés d'un entraîneur (ceux de torchtitan) : un rang en retard à "
        "l'all-reduce qu'il fait avant fwd_bwd (chargement lent, ramasse-miettes, checkpoint, optimiseur) est nommé "
        "avec sa cause, mais un rang lent dans fwd_bwd n'est pas vu, car le fwd_bwd de chaque rang finit à "
        "l'all-reduce des gradients, et sur GPU ces intervalles mesurent les lancements de noyaux, pas les noyaux ; "
        "pour le voir, enregistrez avec le comm hook de ddpcore (ddpcore.ops) ou une fenêtre du profileur",
    },
    "warn.copies": {
        "en": "ranks {first} and {second} hold the same steps to the microsecond: the same file under two rank "
        "numbers?",
        "fr": "les rangs {first} et {second} ont les mêmes pas à la microseconde près : le même fichier sous deux "
        "numéros de rang ?",
    },
    "warn.unmeasured": {
        "en": "{count} rank-step(s) whose work from the previous release is not a positive number (first: rank "
        "{rank}, step {step}, {ms} ms): left out of what chance is measured on",
        "fr": "{count} pas-rang(s) dont le travail depuis la libération précédente n'est pas un nombre positif "
        "(premier : rang {rank}, pas {step}, {ms} ms) : laissé(s) hors de la mesure du hasard",
    },
    # --- where a persistent straggler was slow, what a short window would need -----------------------------------
    "verdict.from": {"en": "slow from step {start}", "fr": "lent à partir du pas {start}"},
    "verdict.until": {"en": "slow until step {stop}", "fr": "lent jusqu'au pas {stop}"},
    "verdict.from_to": {
        "en": "slow from step {start}, on time again from step {stop}",
        "fr": "lent à partir du pas {start}, de nouveau à l'heure au pas {stop}",
    },
    "verdict.undecided": {
        "en": "rank {rank} is over the threshold in {over} of {steps} steps, {ms} a step later than the other ranks "
        "on time on average: {more} more step(s) as late would name it a persistent straggler",
        "fr": "le rang {rank} dépasse le seuil sur {over} pas sur {steps}, {ms} par pas plus tard que les autres "
        "rangs à l'heure en moyenne : {more} pas de plus aussi en retard le désigneraient comme retardataire "
        "persistant",
    },
    "verdict.undecided_moving": {
        "en": "in {spaced} of {steps} steps the latest rank leads the next by more than twice the next one's lead on "
        "the third, as a straggler that moves from rank to rank does: {more} more step(s) as clear would tell it from "
        "jitter",
        "fr": "sur {spaced} pas sur {steps}, le dernier rang devance le suivant de plus du double de l'avance de "
        "celui-ci sur le troisième, comme le fait un retardataire qui change de rang d'un pas à l'autre : {more} pas "
        "de plus aussi nets le distingueraient de la gigue",
    },
    "verdict.undecided_moving_lead": {
        "en": "each step's latest rank leads the next by {ms} more than chance makes the latest of as many ranks lead, "
        "on average over {steps} steps, as a straggler that moves from rank to rank does: {more} more step(s) as "
        "clear would tell it from jitter",
        "fr": "le dernier rang de chaque pas devance le suivant de {ms} de plus que le hasard ne fait devancer le "
        "dernier d'autant de rangs, en moyenne sur {steps} pas, comme le fait un retardataire qui change de rang d'un "
        "pas à l'autre : {more} pas de plus aussi nets le distingueraient de la gigue",
    },
    "verdict.gap_few": {
        "en": "no rank is named late, yet each step's latest rank is {gap} of the step behind the median rank "
        "(median over steps): {steps} steps are too few to tell a rank this late from chance",
        "fr": "aucun rang n'est désigné en retard, et pourtant le dernier rang de chaque pas a {gap} du pas de retard "
        "sur le rang médian (médiane des pas) : {steps} pas sont trop peu pour distinguer du hasard un rang aussi en "
        "retard",
    },
    "verdict.gap_chance": {
        "en": "each step's latest rank is {gap} of the step behind the median rank (median over steps), yet little "
        "of it is named: with {ranks} ranks, the jitter this run shows puts some rank that far back (a rank on time "
        "is over the threshold in {chance} of steps), and no rank is later than that jitter allows in most steps. "
        "A straggler that moves to another rank every step, or ranks that share CPU cores, read as that jitter",
        "fr": "le dernier rang de chaque pas a {gap} du pas de retard sur le rang médian (médiane des pas), et "
        "pourtant peu en est désigné : avec {ranks} rangs, la gigue que montre ce run met un rang aussi loin (un "
        "rang à l'heure dépasse le seuil sur {chance} des pas), et aucun rang n'est plus en retard que cette gigue "
        "ne le permet sur la plupart des pas. Un retardataire qui change de rang à chaque pas, ou des rangs qui se "
        "partagent des cœurs de CPU, se lisent comme cette gigue",
    },
    "verdict.gap_moving": {
        "en": "each step's latest rank is {gap} of the step behind the median rank (median over steps), and it leads "
        "the next one by more than chance makes the latest of {ranks} ranks lead: a straggler that moves from rank to "
        "rank, too little late for most of its steps to stand out alone; it costs {cost} of a step",
        "fr": "le dernier rang de chaque pas a {gap} du pas de retard sur le rang médian (médiane des pas), et il "
        "devance le suivant de plus que le hasard ne fait devancer le dernier de {ranks} rangs : un retardataire qui "
        "change de rang d'un pas à l'autre, trop peu en retard pour que la plupart de ses pas se distinguent seuls ; "
        "il coûte {cost} d'un pas",
    },
    "verdict.gap_moving_uncosted": {
        "en": "each step's latest rank is {gap} of the step behind the median rank (median over steps), and it leads "
        "the next one by more than chance makes the latest of {ranks} ranks lead: a straggler that moves from rank to "
        "rank, too little late for its steps to stand out alone; what it costs cannot be told apart from the jitter "
        "this run shows",
        "fr": "le dernier rang de chaque pas a {gap} du pas de retard sur le rang médian (médiane des pas), et il "
        "devance le suivant de plus que le hasard ne fait devancer le dernier de {ranks} rangs : un retardataire qui "
        "change de rang d'un pas à l'autre, trop peu en retard pour que ses pas se distinguent seuls ; ce qu'il "
        "coûte ne se distingue pas de la gigue que montre ce run",
    },
    "verdict.gap_named": {
        "en": "each step's latest rank is {gap} of the step behind the median rank (median over steps), and the "
        "stragglers named cost {cost} of a step: with {ranks} ranks, the jitter this run shows puts some rank that "
        "far back in the other steps (a rank on time is over the threshold in {chance} of steps)",
        "fr": "le dernier rang de chaque pas a {gap} du pas de retard sur le rang médian (médiane des pas), et les "
        "retardataires désignés coûtent {cost} d'un pas : avec {ranks} rangs, la gigue que montre ce run met un "
        "rang aussi loin sur les autres pas (un rang à l'heure dépasse le seuil sur {chance} des pas)",
    },
    # --- why a rank is late, and what prefetching would do -----------------------------------------------------------
    "cause.load": {"en": "{ms} a step loading its input", "fr": "{ms} par pas à charger ses données"},
    "cause.forward": {"en": "{ms} a step longer in its forward", "fr": "{ms} par pas de plus dans son forward"},
    "cause.backward": {
        "en": "{ms} a step longer in its backward",
        "fr": "{ms} par pas de plus dans son backward",
    },
    "cause.optimizer": {
        "en": "{ms} a step longer in its optimizer step",
        "fr": "{ms} par pas de plus dans son pas d'optimiseur",
    },
    "cause.between_steps": {
        "en": "{ms} a step between its optimizer and its next step, outside any phase: logging, checkpointing, "
        "evaluation or a pause on that rank",
        "fr": "{ms} par pas entre son optimiseur et son pas suivant, hors de toute phase : journalisation, "
        "checkpoint, évaluation ou pause sur ce rang",
    },
    "cause.gpu_compute": {
        "en": "{ms} a step of longer GPU kernels (a slower or throttled GPU, or more work on it)",
        "fr": "{ms} par pas de noyaux GPU plus longs (GPU plus lent ou bridé, ou plus de travail)",
    },
    "cause.host_launch": {
        "en": "{ms} a step with its GPU idle, waiting for the host to launch work",
        "fr": "{ms} par pas où son GPU attend, inactif, que l'hôte lance le travail",
    },
    "cause.copies": {"en": "{ms} a step in memory copies", "fr": "{ms} par pas en copies mémoire"},
    "cause.forward_backward": {
        "en": "{ms} a step longer in its forward and backward (one span in its logs: which of the two, they do not "
        "say)",
        "fr": "{ms} par pas de plus dans son forward et son backward (un seul intervalle dans ses journaux : lequel "
        "des deux, ils ne le disent pas)",
    },
    "cause.gc": {"en": "{ms} a step in garbage collection", "fr": "{ms} par pas en ramasse-miettes"},
    "cause.checkpoint": {"en": "{ms} a step saving checkpoints", "fr": "{ms} par pas à enregistrer des checkpoints"},
    "cause.mixed": {
        "en": "{ms} a step with no single cause: {parts}",
        "fr": "{ms} par pas sans cause unique : {parts}",
    },
    "causes.load": {
        "en": "{ms} more than the median rank in each of those steps, loading their input",
        "fr": "{ms} de plus que le rang médian dans chacun de ces pas, à charger leurs données",
    },
    "causes.forward": {
        "en": "{ms} more than the median rank in each of those steps, in their forward",
        "fr": "{ms} de plus que le rang médian dans chacun de ces pas, dans leur forward",
    },
    "causes.backward": {
        "en": "{ms} more than the median rank in each of those steps, in their backward",
        "fr": "{ms} de plus que le rang médian dans chacun de ces pas, dans leur backward",
    },
    "causes.optimizer": {
        "en": "{ms} more than the median rank in each of those steps, in their optimizer step",
        "fr": "{ms} de plus que le rang médian dans chacun de ces pas, dans leur pas d'optimiseur",
    },
    "causes.between_steps": {
        "en": "{ms} more than the median rank in each of those steps, between their optimizer and their next step, "
        "outside any phase: logging, checkpointing, evaluation or a pause on those ranks",
        "fr": "{ms} de plus que le rang médian dans chacun de ces pas, entre leur optimiseur et leur pas suivant, hors "
        "de toute phase : journalisation, checkpoint, évaluation ou pause sur ces rangs",
    },
    "causes.gpu_compute": {
        "en": "{ms} more than the median rank in each of those steps, in longer GPU kernels (slower or throttled "
        "GPUs, or more work on them)",
        "fr": "{ms} de plus que le rang médian dans chacun de ces pas, en noyaux GPU plus longs (GPU plus lents ou "
        "bridés, ou plus de travail)",
    },
    "causes.host_launch": {
        "en": "{ms} more than the median rank in each of those steps, their GPUs idle, waiting for the host to "
        "launch work",
        "fr": "{ms} de plus que le rang médian dans chacun de ces pas, leurs GPU inactifs, attendant que l'hôte lance "
        "le travail",
    },
    "causes.copies": {
        "en": "{ms} more than the median rank in each of those steps, in memory copies",
        "fr": "{ms} de plus que le rang médian dans chacun de ces pas, en copies mémoire",
    },
    "causes.forward_backward": {
        "en": "{ms} more than the median rank in each of those steps, in their forward and backward (one span in "
        "their logs)",
        "fr": "{ms} de plus que le rang médian dans chacun de ces pas, dans leur forward et leur backward (un seul "
        "intervalle dans leurs journaux)",
    },
    "causes.gc": {
        "en": "{ms} more than the median rank in each of those steps, in garbage collection",
        "fr": "{ms} de plus que le rang médian dans chacun de ces pas, en ramasse-miettes",
    },
    "causes.checkpoint": {
        "en": "{ms} more than the median rank in each of those steps, saving checkpoints",
        "fr": "{ms} de plus que le rang médian dans chacun de ces pas, à enregistrer des checkpoints",
    },
    "causes.mixed": {
        "en": "{ms} more than the median rank in each of those steps, with no single cause: {parts}",
        "fr": "{ms} de plus que le rang médian dans chacun de ces pas, sans cause unique : {parts}",
    },
    "cause.part_ms": {"en": "{part} {ms}", "fr": "{part} {ms}"},
    "cause.share": {"en": "{cause} ({share})", "fr": "{cause} ({share})"},
    "cause.shares": {"en": "{cause} ({share}; {part} {next})", "fr": "{cause} ({share} ; {part} {next})"},
    "part.load": {"en": "loading", "fr": "chargement"},
    "part.forward": {"en": "forward", "fr": "forward"},
    "part.backward": {"en": "backward", "fr": "backward"},
    "part.optimizer": {"en": "optimizer", "fr": "optimiseur"},
    "part.between_steps": {"en": "between steps", "fr": "entre les pas"},
    "part.gpu_compute": {"en": "GPU kernels", "fr": "noyaux GPU"},
    "part.host_launch": {"en": "GPU idle for the host", "fr": "GPU inactif pour l'hôte"},
    "part.copies": {"en": "copies", "fr": "copies"},
    "part.forward_backward": {"en": "forward and backward", "fr": "forward et backward"},
    "part.gc": {"en": "garbage collection", "fr": "ramasse-miettes"},
    "part.checkpoint": {"en": "checkpoint", "fr": "enregistrement de checkpoint"},
    "part.mixed": {"en": "several parts", "fr": "plusieurs parts"},
    "prefetch.saves": {
        "en": "prefetching input would save about {ms} a step",
        "fr": "précharger les données ferait gagner environ {ms} par pas",
    },
    "prefetch.maybe": {
        "en": "prefetching input may help, if that time between steps is the loader's",
        "fr": "précharger les données peut aider, si ce temps entre les pas est celui du chargeur",
    },
    "prefetch.no": {
        "en": "prefetching input would not help: the time is lost in {part}",
        "fr": "précharger les données n'aiderait pas : la part en cause est « {part} »",
    },
    "prefetch.unmarked": {
        "en": "these traces mark no input loading (no DataLoader annotation): time between steps may be the loader's",
        "fr": "ces traces ne marquent aucun chargement de données (pas d'annotation DataLoader) : le temps entre les "
        "pas peut être celui du chargeur",
    },
    # --- the fit -----------------------------------------------------------------------------------------------------
    "fit.caveat_few_rank_steps": {
        "en": "few rank-steps: the intervals are wide and the model may not hold",
        "fr": "peu de pas-rangs : les intervalles sont larges et le modèle peut ne pas tenir",
    },
    "fit.caveat_few_slowed": {
        "en": "fewer than {min_slowed} slowed rank-steps: the transient slowdown rests on very few",
        "fr": "moins de {min_slowed} pas-rangs ralentis : le ralentissement passager repose sur très peu",
    },
    "fit.caveat_unmeasured": {
        "en": "{count} rank-step(s) left out, whose work is not a positive number (first: rank {rank}, step {step})",
        "fr": "{count} pas-rang(s) laissé(s) de côté, leur travail n'étant pas un nombre positif (premier : rang "
        "{rank}, pas {step})",
    },
    "fit.error_few": {
        "en": "need at least two ranks and two steps to fit a straggler model (got {ranks} and {steps})",
        "fr": "il faut au moins deux rangs et deux pas pour ajuster le modèle de retardataires ({ranks} et {steps} "
        "ici)",
    },
    "fit.error_compute": {
        "en": "no two rank-steps on time have a positive work (from the previous release to the last gradient bucket)",
        "fr": "aucun couple de pas-rangs à l'heure n'a un travail positif (de la libération précédente au dernier "
        "bucket de gradients)",
    },
    # --- a 3D-parallel job's what-if (analysis.jobwhatif) ---------------------------------------------------------
    "job.unreadable": {
        "en": "not one 3D-parallel job: {detail}",
        "fr": "pas un seul job parallèle 3D : {detail}",
    },
    "job.file_left": {
        "en": "{name}: left out, neither an operation table nor a job's meta file",
        "fr": "{name} : laissé de côté, ni une table d'opérations ni le fichier meta d'un job",
    },
    "job.step_lacks": {
        "en": "step {step} left out: it lacks {count} operation(s), first {op} #{seq} of stage {stage} on dp rank {dp}",
        "fr": "pas {step} laissé de côté : il lui manque {count} opération(s), d'abord {op} n° {seq} de l'étage "
        "{stage} sur le rang dp {dp}",
    },
    "job.step_extra": {
        "en": "step {step} left out: it has {count} extra operation(s), first {op} #{seq} of stage {stage} on dp rank "
        "{dp}",
        "fr": "pas {step} laissé de côté : il a {count} opération(s) de trop, d'abord {op} n° {seq} de l'étage {stage} "
        "sur le rang dp {dp}",
    },
    "job.warmed_up": {
        "en": "step {step} left out: the warm-up (compilation, allocator growth, first connections), as for per-rank "
        "traces",
        "fr": "pas {step} laissé de côté : l'échauffement (compilation, croissance des allocateurs, premières "
        "connexions), comme pour les traces par rang",
    },
    "job.no_meta": {
        "en": "no meta file: tensor and context parallelism read as 1 (the table holds DP {dp} × PP {pp})",
        "fr": "pas de fichier meta : parallélisme tensoriel et de contexte lus à 1 (la table contient DP {dp} × PP "
        "{pp})",
    },
    "job.tp_read": {
        "en": "tensor-parallel groups of {tp} (mesh_tp): each worker read from its group's lowest rank ({ranks})",
        "fr": "groupes tensor-parallel de {tp} (mesh_tp) : chaque worker lu sur le plus petit rang de son groupe "
        "({ranks})",
    },
    "job.tp_waits": {
        "en": "rank {rank} (DP {dp}, stage {stage}) makes its tensor-parallel group wait: its peers wait {others} a "
        "step in the group's all-reduces, it {own}",
        "fr": "le rang {rank} (DP {dp}, étage {stage}) fait attendre son groupe tensor-parallel : ses pairs attendent "
        "{others} par pas dans les all-reduce du groupe, lui {own}",
    },
    "job.world_beyond": {
        "en": "{given} ranks' traces of a world of {world}: the other {more} read as tensor-parallel peers (TP {tp}) "
        "that run as the ranks given",
        "fr": "les traces de {given} rangs d'un monde de {world} : les {more} autres lus comme des pairs "
        "tensor-parallel (TP {tp}) qui tournent comme les rangs donnés",
    },
    "job.world_odd": {
        "en": "{given} ranks' traces of a world of {world}, not {sizes}",
        "fr": "les traces de {given} rangs d'un monde de {world}, pas {sizes}",
    },
    "job.world_uneven": {
        "en": "{given} ranks' traces of a world of {world}, not a multiple of DP {dp} × PP {pp}",
        "fr": "les traces de {given} rangs d'un monde de {world}, pas un multiple de DP {dp} × PP {pp}",
    },
    "job.none": {
        "en": "no straggler: the job runs at {ratio} its ideal step",
        "fr": "pas de retardataire : le job tourne à {ratio} de son pas idéal",
    },
    "job.worker": {
        "en": "one worker (DP {dp}, stage {stage}) is slow in its {parts}: the job runs at {ratio} its ideal step, and "
        "that worker explains {share} of the slowdown",
        "fr": "un worker (DP {dp}, étage {stage}) est lent dans son {parts} : le job tourne à {ratio} de son pas "
        "idéal, et ce worker explique {share} du ralentissement",
    },
    "job.data_parallel": {
        "en": "a different data-parallel rank is the slowest from step to step (the most frequent one in {most} of "
        "{steps} steps; any one rank alone costs at most {rank_ratio}): uneven work across data-parallel ranks, as "
        "uneven sequence lengths make; the job runs at {ratio} its ideal step",
        "fr": "le rang data-parallel le plus lent change d'un pas à l'autre (le plus fréquent dans {most} pas sur "
        "{steps} ; un rang seul coûte au plus {rank_ratio}) : un travail inégal entre rangs data-parallel, comme en "
        "font des séquences de longueurs inégales ; le job tourne à {ratio} de son pas idéal",
    },
    "job.last_stage": {
        "en": "the last stage holds too much of the model: {stage_ratio} from it alone, {share} of the slowdown; move "
        "layers off stage {stage}",
        "fr": "le dernier étage porte trop du modèle : {stage_ratio} de lui seul, {share} du ralentissement ; "
        "déplacez des couches hors de l'étage {stage}",
    },
    "job.heavy_stage": {
        "en": "stage {stage} holds too much of the model: each of its workers computes at least {load} the mean "
        "worker's, and the pipeline runs at its pace ({stage_ratio} from it alone, {share} of the slowdown); move "
        "layers off stage {stage}",
        "fr": "l'étage {stage} porte trop du modèle : chacun de ses workers calcule au moins {load} la moyenne des "
        "workers, et le pipeline va à son pas ({stage_ratio} de lui seul, {share} du ralentissement) ; déplacez des "
        "couches hors de l'étage {stage}",
    },
    "job.spread_stages": {
        "en": "the slowdown ({ratio}) has no single place: the worst stage {stage} costs {stage_ratio} alone, the "
        "worst operation type {optype} {optype_ratio}",
        "fr": "le ralentissement ({ratio}) n'a pas de lieu unique : le pire étage {stage} coûte {stage_ratio} seul, "
        "le pire type d'opération {optype} {optype_ratio}",
    },
    "job.everywhere": {
        "en": "the slowdown ({ratio}) is in every worker: each one's real durations alone slow the job by at least "
        "{least}, durations that vary from step to step and worker to worker (as on a shared or noisy machine); the "
        "worst stage is {stage} ({stage_ratio})",
        "fr": "le ralentissement ({ratio}) est dans chaque worker : les durées réelles de chacun ralentissent seules "
        "le job d'au moins {least}, des durées qui varient d'un pas et d'un worker à l'autre (comme sur une machine "
        "partagée ou bruitée) ; le pire étage est le {stage} ({stage_ratio})",
    },
    "job.spread": {
        "en": "the slowdown ({ratio}) has no single place: the worst data-parallel rank {dp} costs {dp_ratio} alone, "
        "the worst stage {stage} {stage_ratio}, the worst operation type {optype} {optype_ratio}",
        "fr": "le ralentissement ({ratio}) n'a pas de lieu unique : le pire rang data-parallel {dp} coûte {dp_ratio} "
        "seul, le pire étage {stage} {stage_ratio}, le pire type d'opération {optype} {optype_ratio}",
    },
    # --- a threshold as typed ----------------------------------------------------------------------------------------
    "threshold.percent": {
        "en": "“{given}” read as a percent: {percent} of the step ({applied}).",
        "fr": "« {given} » lu comme un pourcentage : {percent} du pas ({applied}).",
    },
    "threshold.range": {
        "en": "“{given}” not applied: a threshold is a share of the step from {least} to all of it, as a share (0.2) "
        "or a percent (20 %).",
        "fr": "« {given} » non appliqué : un seuil est une part du pas, de {least} au pas entier, en part (0,2) ou en "
        "pourcentage (20 %).",
    },
    "threshold.number": {
        "en": "“{given}” not applied: not a number. A share of the step (0.2) or a percent (20 %).",
        "fr": "« {given} » non appliqué : ce n'est pas un nombre. Une part du pas (0,2) ou un pourcentage (20 %).",
    },
}
"""Each message's code and its English and French: the only place either is written."""

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def placeholders(code: str, lang: str = "en") -> set[str]:
    """The values a message's text names.

    >>> sorted(placeholders("file.too_big"))
    ['mib', 'size']
    """
    return set(_PLACEHOLDER.findall(WORDS[code][lang]))


@dataclass(frozen=True)
class Message:
    """A message of the core: its code (`WORDS`) and its values, said in a language only when shown."""

    code: str
    values: tuple[tuple[str, object], ...] = ()

    @staticmethod
    def of(code: str, **values: object) -> Message:
        """A message with its values by name."""
        return Message(code, tuple(values.items()))

    def text(self, lang: str = "en") -> str:
        """The message in `lang` (English by default)."""
        return say(self.code, lang, **dict(self.values))


class Ms(float):
    """A duration in milliseconds, written to a tenth: "40.5 ms", "40,5 ms"."""


class Share(float):
    """A share, written as a whole percent: "77 %" (a narrow no-break space before the sign, in both languages)."""


class Ratio(float):
    """A slowdown, written to two decimals with a times sign: "1.97×", "1,97×"."""


def _written(value: object, lang: str) -> str:
    if isinstance(value, Message):
        return value.text(lang)
    if isinstance(value, tuple):
        return ", ".join(_written(v, lang) for v in value)
    if isinstance(value, Ms):
        text = f"{value:.1f}"
        return f"{text.replace('.', ',')}{NBSP}ms" if lang == "fr" else f"{text} ms"
    if isinstance(value, Share):
        return f"{round(100 * value)}{NBSP}%"
    if isinstance(value, Ratio):
        text = f"{value:.2f}×"
        return text.replace(".", ",") if lang == "fr" else text
    if isinstance(value, float) and lang == "fr":
        return f"{value:g}".replace(".", ",")
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def listed(values: Sequence[object], most: int) -> str:
    """The first `most` values, for a line, and an ellipsis when there are more.

    >>> listed([1, 2, 3], 2), listed([1, 2], 2)
    ('1, 2, …', '1, 2')
    """
    return ", ".join(map(str, values[:most])) + (", …" if len(values) > most else "")


def say(code: str, lang: str = "en", /, **values: object) -> str:
    """A message's text in `lang`, its values written in (a Message value said in the same language)."""
    words = WORDS[code]
    return (words.get(lang) or words["en"]).format(**{k: _written(v, lang) for k, v in values.items()})


class Said(ValueError):
    """An error said by code and values: `str()` is its English, `message` says it in any language. Every error
    ddpcore raises on a user's input is one (a file it cannot read, a run it cannot judge, a fit it cannot make).

    >>> error = Said("run.two_ranks")
    >>> isinstance(error, ValueError), error.code
    (True, 'run.two_ranks')
    >>> error.message.text("fr")
    "il faut les traces d'au moins deux rangs pour les comparer"
    """

    def __init__(self, code: str, **values: object) -> None:
        self.message = Message.of(code, **values)
        super().__init__(self.message.text())

    @property
    def code(self) -> str:
        """The message's code."""
        return self.message.code

    def __reduce__(self) -> tuple:
        return _said_again, (type(self), self.message)


def _said_again(kind: type[Said], message: Message) -> Said:
    return kind(message.code, **dict(message.values))


def _check_table() -> None:
    for code, words in WORDS.items():
        assert set(words) == set(LANGS), code


_check_table()
