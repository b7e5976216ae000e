/// \file nsc/config.hpp
/// Version macros of the nsc library.
#ifndef NSC_CONFIG_HPP
#define NSC_CONFIG_HPP

#define NSC_VERSION_MAJOR 0
#define NSC_VERSION_MINOR 1
#define NSC_VERSION_PATCH 0
#define NSC_VERSION_STRING "0.1.0"

#endif // NSC_CONFIG_HPP
